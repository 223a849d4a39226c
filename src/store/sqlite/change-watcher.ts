import type SqliteDatabase from 'better-sqlite3';
import type { WakeSource } from '../../jobs/notifier.js';

/** How often a worker looks for other connections' commits: a few ms added to a job's start. */
export const CHANGE_POLL_MS = 5;

/**
 * SQLite's counterpart of PostgreSQL's LISTEN: `pragma data_version` changes whenever another
 * connection has committed (another process's, or this process's ingest thread). It is read from
 * the log's shared-memory index, no disk I/O, so looking every few milliseconds costs a few
 * microseconds each time. Without it, a worker in a process of its own (`serve --role worker`)
 * saw the API's new jobs only at its next poll, up to a second later, whenever it had run out of
 * work.
 */
export class SqliteChangeWatcher implements WakeSource {
  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly intervalMs = CHANGE_POLL_MS,
  ) {}

  start(wake: () => void): () => Promise<void> {
    const version = this.sqlite.prepare('pragma data_version').pluck();
    const read = (): unknown => {
      try {
        return version.get();
      } catch {
        // The store is closing: nothing to wake.
        return undefined;
      }
    };
    let last = read();
    const timer = setInterval(() => {
      const now = read();
      if (now === undefined || now === last) return;
      last = now;
      wake();
    }, this.intervalMs);
    timer.unref();
    return async () => clearInterval(timer);
  }
}
