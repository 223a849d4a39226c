import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';
import { namedQuery, type PreparedRunner, slot } from './prepared.js';

type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Where artifact bytes live. `put` is called inside the transaction that marks the artifact
 * available, so the row never says "available" without its bytes and a crash leaves neither.
 * An object store would implement the same two methods by writing before that transaction
 * (the rows only ever point at bytes already stored) and ignoring `trx`.
 */
export interface ArtifactStore {
  put(trx: Executor, artifactId: string, body: Buffer): Promise<void>;
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
  private readonly upsert;
  private readonly select;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly runner: PreparedRunner,
  ) {
    this.upsert = namedQuery(
      db
        .insertInto('artifact_contents')
        .values({ artifact_id: slot('id'), body: slot<Buffer>('body') })
        .onConflict((oc) => oc.column('artifact_id').doUpdateSet((eb) => ({ body: eb.ref('excluded.body') })))
        .compile(),
    );
    this.select = namedQuery(
      db.selectFrom('artifact_contents').select('body').where('artifact_id', '=', slot('id')).compile(),
    );
  }

  async put(trx: Executor, artifactId: string, body: Buffer): Promise<void> {
    await this.runner.run(trx, this.upsert, { id: artifactId, body });
  }

  async get(artifactId: string): Promise<Buffer | undefined> {
    const [row] = await this.runner.all<{ body: Uint8Array }>(this.db, this.select, { id: artifactId });
    return row ? Buffer.from(row.body.buffer, row.body.byteOffset, row.body.byteLength) : undefined;
  }
}
