import path from 'node:path';
import Database from 'better-sqlite3';
import type { Clock } from '../../clock.js';
import { sha256Hex } from '../../hash.js';
import type { ArtifactBytes, ArtifactStore, StoredPage } from '../artifact-store.js';

/** The second SQLite file under DATA_DIR that holds report bytes. */
export const ARTIFACTS_DATABASE_FILE = 'artifacts.db';

const SCHEMA = `create table if not exists artifact_bytes (
  artifact_id text primary key,
  written_at integer not null,
  body blob not null
) without rowid`;

/**
 * Report bytes in a second SQLite file (`DATA_DIR/artifacts.db`) on a connection of its own,
 * written before the main database's commit that marks them available. `synchronous=NORMAL`:
 * a commit waits for no disk (the file is synced only when checkpointed), since the bytes are
 * derived data and a download renders lost ones again; the file itself is never left corrupt.
 * Deleted bytes are zeroed (`secure_delete`) and the log truncated, as in the main database.
 */
export class SqliteArtifactStore implements ArtifactStore {
  readonly inDatabase = false;
  readonly file: string;
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<[string, number, Buffer]>;
  private readonly select: Database.Statement<[string], { body: Buffer }>;
  private readonly remove: Database.Statement<[string]>;
  private readonly page: Database.Statement<[string, number], { artifact_id: string; written_at: number }>;
  private readonly writeMany: (artifacts: readonly ArtifactBytes[]) => void;

  constructor(dataDir: string, now: Clock) {
    this.file = path.join(dataDir, ARTIFACTS_DATABASE_FILE);
    const db = new Database(this.file);
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('secure_delete = ON');
    db.exec(SCHEMA);
    this.db = db;
    this.insert = db.prepare(
      'insert or replace into artifact_bytes (artifact_id, written_at, body) values (?, ?, ?)',
    );
    this.select = db.prepare('select body from artifact_bytes where artifact_id = ?');
    this.remove = db.prepare('delete from artifact_bytes where artifact_id = ?');
    this.page = db.prepare(
      'select artifact_id, written_at from artifact_bytes where artifact_id > ? order by artifact_id limit ?',
    );
    this.writeMany = db.transaction((artifacts: readonly ArtifactBytes[]) => {
      const at = now().getTime();
      for (const a of artifacts) this.insert.run(a.artifactId, at, a.body);
    });
  }

  async write(artifacts: readonly ArtifactBytes[]): Promise<void> {
    this.writeMany(artifacts);
  }

  async restore(artifactId: string, body: Buffer): Promise<void> {
    this.writeMany([{ artifactId, body, sha256: sha256Hex(body) }]);
  }

  async get(artifactId: string): Promise<Buffer | undefined> {
    return this.select.get(artifactId)?.body;
  }

  async delete(artifactIds: readonly string[]): Promise<void> {
    if (artifactIds.length === 0) return;
    this.db.transaction(() => {
      for (const id of artifactIds) this.remove.run(id);
    })();
    // The log still holds the deleted bytes' frames until it is truncated.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async check(): Promise<void> {}

  async stored(before: Date, after: string | undefined, limit: number): Promise<StoredPage> {
    const rows = this.page.all(after ?? '', limit);
    return {
      artifactIds: rows.filter((r) => r.written_at < before.getTime()).map((r) => r.artifact_id),
      next: rows.length >= limit ? rows.at(-1)?.artifact_id : undefined,
    };
  }

  async directLink(): Promise<string | undefined> {
    return undefined;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
