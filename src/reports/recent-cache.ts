/**
 * A bounded cache that keeps what was used recently: two generations of at most `limit` entries.
 * When the young one is full it becomes the old one and the previous old one is dropped; a hit
 * in the old generation moves the entry to the young one. Unlike clearing one map when it is
 * full, the entries every report uses (fixed wording, words seen before) survive, so no report
 * pays to rebuild them all at once.
 *
 * Kept instead of `lru-cache` (every other cache's) for the PDF's text caches, which a report
 * reads thousands of times: a hit here is one `Map` lookup, and with `LRUCache` (its recency
 * list kept on every hit) a PDF cost 3–6 % more CPU (1.914 against 1.802 and 2.157 against 2.094
 * ms per report, main's renderer and the lru-cache one alternating in one process, 2026-11-26).
 */
export class RecentCache<V> {
  private young = new Map<string, V>();
  private old = new Map<string, V>();

  constructor(private readonly limit: number) {}

  get(key: string): V | undefined {
    const value = this.young.get(key);
    if (value !== undefined) return value;
    const older = this.old.get(key);
    if (older !== undefined) this.set(key, older);
    return older;
  }

  set(key: string, value: V): V {
    if (this.young.size >= this.limit) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(key, value);
    return value;
  }
}
