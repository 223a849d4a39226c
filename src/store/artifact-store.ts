import { randomUUID } from 'node:crypto';
import fsSync from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';

/**
 * Where artifact bytes live. `put` resolves only once the bytes are durable; the artifact row
 * is marked available afterwards, in the step's completing transaction. An object store can
 * implement the same two methods.
 */
export interface ArtifactStore {
  put(artifactId: string, body: Buffer): Promise<void>;
  get(artifactId: string): Promise<Buffer | undefined>;
}

/**
 * Files under `DATA_DIR/artifacts/`, written to a temporary name and renamed (never a torn
 * file), on libuv's thread pool so large reports never block the event loop.
 *
 * Not fsynced, on purpose: report bytes are derived data. The durable record is the result
 * and the artifact row with its SHA-256; rendering is deterministic, so a file lost to a power
 * failure (or missing on another machine) is rendered again on download and checked against
 * that hash. Syncing three files per submission would cap the pipeline at the disk's fsync
 * rate for no gain in what can be lost.
 */
export class FileArtifactStore implements ArtifactStore {
  private readonly root: string;

  constructor(readonly dataDir: string) {
    this.root = path.join(dataDir, 'artifacts');
  }

  private pathOf(artifactId: string): string {
    if (!/^[0-9a-f-]{36}$/.test(artifactId)) throw new Error('artifact ids are UUIDs');
    return path.join(this.root, artifactId.slice(-2), artifactId);
  }

  async put(artifactId: string, body: Buffer): Promise<void> {
    const target = this.pathOf(artifactId);
    const dir = path.dirname(target);
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = `${target}.${randomUUID()}.tmp`;
    await fs.writeFile(temp, body, { mode: 0o600 });
    await fs.rename(temp, target);
  }

  /** The same, blocking: for render threads, where blocking costs no one else anything. */
  putSync(artifactId: string, body: Buffer): void {
    const target = this.pathOf(artifactId);
    fsSync.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const temp = `${target}.${randomUUID()}.tmp`;
    fsSync.writeFileSync(temp, body, { mode: 0o600 });
    fsSync.renameSync(temp, target);
  }

  async get(artifactId: string): Promise<Buffer | undefined> {
    try {
      return await fs.readFile(this.pathOf(artifactId));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }
}

/** Bytes in the database (`artifact_contents`): shared by every process that shares it. */
export class DatabaseArtifactStore implements ArtifactStore {
  constructor(private readonly db: Kysely<Database> | Transaction<Database>) {}

  async put(artifactId: string, body: Buffer): Promise<void> {
    await this.db
      .insertInto('artifact_contents')
      .values({ artifact_id: artifactId, body })
      .onConflict((oc) => oc.column('artifact_id').doUpdateSet({ body }))
      .execute();
  }

  async get(artifactId: string): Promise<Buffer | undefined> {
    const row = await this.db
      .selectFrom('artifact_contents')
      .select('body')
      .where('artifact_id', '=', artifactId)
      .executeTakeFirst();
    return row ? Buffer.from(row.body) : undefined;
  }
}
