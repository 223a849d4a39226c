import type { Driver } from './driver.js';
import { type Executor, type NamedQuery, namedQuery, slot } from './prepared.js';

/**
 * Where artifact bytes live. `put` is called inside the transaction that marks the artifact
 * available, so the row never says "available" without its bytes and a crash leaves neither.
 * An object store would implement the same two methods by writing before that transaction
 * (the rows only ever point at bytes already stored) and ignoring `trx`.
 */
export interface ArtifactStore {
  put(trx: Executor, artifactId: string, body: Buffer): Promise<void>;
  /** Several at once (a submission's reports), in one statement where the store allows. */
  putAll(trx: Executor, items: ReadonlyArray<{ artifactId: string; body: Buffer }>): Promise<void>;
  get(artifactId: string): Promise<Buffer | undefined>;
}

/**
 * Bytes in the database (`artifact_contents`), on both SQLite and PostgreSQL: one durable
 * commit covers the rows and the bytes, and every process sharing the database can serve every
 * download. Measured against files under DATA_DIR, this is also the faster one: creating three
 * files per submission made the filesystem's journal, not the renderers, the pipeline's limit
 * (docs/performance.md).
 */
export class DatabaseArtifactStore implements ArtifactStore {
  private readonly select: NamedQuery;
  /** Multi-row upserts, by row count. */
  private readonly upserts = new Map<number, NamedQuery>();

  constructor(private readonly driver: Driver) {
    const db = driver.db;
    this.select = namedQuery(
      db.selectFrom('artifact_contents').select('body').where('artifact_id', '=', slot('id')).compile(),
    );
  }

  private upsertOf(count: number): NamedQuery {
    let query = this.upserts.get(count);
    if (!query) {
      query = namedQuery(
        this.driver.db
          .insertInto('artifact_contents')
          .values(
            Array.from({ length: count }, (_, i) => ({
              artifact_id: slot(`id${i}`),
              body: slot<Buffer>(`body${i}`),
            })),
          )
          .onConflict((oc) =>
            oc.column('artifact_id').doUpdateSet((eb) => ({ body: eb.ref('excluded.body') })),
          )
          .compile(),
      );
      this.upserts.set(count, query);
    }
    return query;
  }

  async put(trx: Executor, artifactId: string, body: Buffer): Promise<void> {
    await this.putAll(trx, [{ artifactId, body }]);
  }

  async putAll(trx: Executor, items: ReadonlyArray<{ artifactId: string; body: Buffer }>): Promise<void> {
    if (items.length === 0) return;
    const values: Record<string, unknown> = {};
    for (const [i, item] of items.entries()) {
      values[`id${i}`] = item.artifactId;
      values[`body${i}`] = item.body;
    }
    await this.driver.runner.run(trx, this.upsertOf(items.length), values);
  }

  async get(artifactId: string): Promise<Buffer | undefined> {
    const [row] = await this.driver.runner.all<{ body: Uint8Array }>(this.driver.db, this.select, {
      id: artifactId,
    });
    return row ? Buffer.from(row.body.buffer, row.body.byteOffset, row.body.byteLength) : undefined;
  }
}
