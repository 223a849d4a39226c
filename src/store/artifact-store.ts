import type { Committer } from './commit-batcher.js';
import type { Driver } from './driver.js';
import { type NamedQuery, namedQuery, slot } from './prepared.js';
import { upsertArtifactContents } from './statements.js';

/** One artifact's bytes as the render step hands them over, with the hash its row records. */
export interface ArtifactBytes {
  artifactId: string;
  body: Buffer;
  sha256: string;
}

/** What a presigned link to an object must match, and what its answer says. */
export interface DirectLinkRequest {
  byteSize: number;
  sha256: string;
  contentType: string;
  contentDisposition: string;
  expiresSeconds: number;
}

/** The object store did not answer, or answered with an error of its own: retry later. */
export class ObjectStoreUnavailableError extends Error {
  constructor(operation: string, cause: unknown) {
    super(`the object store failed to ${operation}`, { cause });
  }
}

/**
 * Where artifact bytes live. The artifacts' rows (size, sha256, availability) are always in the
 * database; the bytes either go in with the commit that marks them available (`inDatabase`:
 * `Driver.storeArtifacts` writes bytes and rows in one statement on PostgreSQL) or are written
 * before that commit (`write`, an object store). Bytes are derived data: a download checks them
 * against the recorded sha256 and renders them again when missing or altered, so an object
 * written and never committed (an orphan) is harmless, and the cleaner deletes it.
 */
export interface ArtifactStore {
  /** True when the commit that marks artifacts available writes their bytes too. */
  readonly inDatabase: boolean;
  /** Writes bytes before the commit that marks them available (nothing to do in the database). */
  write(artifacts: readonly ArtifactBytes[]): Promise<void>;
  /** Writes one artifact's bytes back (rendered again and checked against its hash). */
  restore(artifactId: string, body: Buffer): Promise<void>;
  /** The stored bytes; undefined when they are missing. Throws `ObjectStoreUnavailableError`. */
  get(artifactId: string): Promise<Buffer | undefined>;
  /** Deletes erased artifacts' bytes outside the database (its rows went with their commit). */
  delete(artifactIds: readonly string[]): Promise<void>;
  /** Throws, in one sentence naming the setting, unless bytes can be written, read and deleted. */
  check(): Promise<void>;
  /**
   * A page (at most `limit`) of the objects written before `before`, in key order after the
   * artifact `after`, for the cleaner's sweep of orphans; `next` is where the following page
   * starts, undefined at the end. Nothing in the database: its bytes have no life of their own.
   */
  stored(before: Date, after: string | undefined, limit: number): Promise<StoredPage>;
  /**
   * A link straight to the bytes (a presigned object URL) when they are there as recorded;
   * undefined when the store has no such links or the object is missing or does not match.
   */
  directLink(artifactId: string, expected: DirectLinkRequest): Promise<string | undefined>;
  /** Ends its connections (the store's own `close`). */
  close(): Promise<void>;
}

export interface StoredPage {
  /** What each object's key names (an artifact's id, or anything else found under the prefix). */
  artifactIds: string[];
  next: string | undefined;
}

/**
 * Bytes in the database (`artifact_contents`), on both SQLite and PostgreSQL: one durable
 * commit covers the rows and the bytes, and every process sharing the database can serve every
 * download. The embedded default: measured against unsynced files under DATA_DIR
 * (`EMBEDDED_ARTIFACTS=files`) and a second SQLite file (measured, not offered), it costs the
 * service the least CPU per submission (docs/object-storage.md, "The embedded default and switching").
 */
export class DatabaseArtifactStore implements ArtifactStore {
  readonly inDatabase = true;
  private readonly select: NamedQuery;
  private readonly upsert: NamedQuery;

  constructor(
    private readonly driver: Driver,
    private readonly committer: Committer,
  ) {
    const db = driver.db;
    this.select = namedQuery(
      db.selectFrom('artifact_contents').select('body').where('artifact_id', '=', slot('id')).compile(),
    );
    this.upsert = namedQuery(upsertArtifactContents(db, 1).compile());
  }

  async write(): Promise<void> {}

  async restore(artifactId: string, body: Buffer): Promise<void> {
    // Commit unit: an upsert of the same bytes.
    await this.committer.submit((trx) =>
      this.driver.runner.run(trx, this.upsert, { id0: artifactId, body0: body }),
    );
  }

  async get(artifactId: string): Promise<Buffer | undefined> {
    const [row] = await this.driver.runner.all<{ body: Uint8Array }>(this.driver.db, this.select, {
      id: artifactId,
    });
    return row ? Buffer.from(row.body.buffer, row.body.byteOffset, row.body.byteLength) : undefined;
  }

  async delete(): Promise<void> {}

  /** The database's own readiness check covers it. */
  async check(): Promise<void> {}

  async stored(): Promise<StoredPage> {
    return { artifactIds: [], next: undefined };
  }

  async directLink(): Promise<string | undefined> {
    return undefined;
  }

  async close(): Promise<void> {}
}
