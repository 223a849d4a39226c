import fs from 'node:fs';
import path from 'node:path';
import { sha256Hex } from '../../hash.js';
import {
  type ArtifactBytes,
  type ArtifactStore,
  ObjectStoreUnavailableError,
  type StoredPage,
} from '../artifact-store.js';
import { countObjectOperation as counted } from '../object-operations.js';

/** The folder under DATA_DIR that holds one file per artifact, in 256 shards. */
export const ARTIFACT_FILES_DIR = 'artifacts';

// An artifact's id, or a name the sweep found: never a path of its own.
const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{1,}$/;

/**
 * Report bytes as files under DATA_DIR (`artifacts/<first 2 characters>/<id>`), written before
 * the commit that marks them available and never synced on their own: they are derived data, so
 * a file lost in a crash or torn by one fails the download's sha256 check and is rendered again.
 * A file system that refuses (full, read-only, failing) is an unavailable store, as S3 down is:
 * the render step and erasures wait for it without limit, downloads answer `503`.
 */
export class FileArtifactStore implements ArtifactStore {
  readonly inDatabase = false;
  readonly root: string;

  constructor(dataDir: string) {
    this.root = path.join(dataDir, ARTIFACT_FILES_DIR);
  }

  file(artifactId: string): string {
    if (!NAME.test(artifactId)) throw new Error('an artifact file is named by an id');
    return path.join(this.root, artifactId.slice(0, 2), artifactId);
  }

  async write(artifacts: readonly ArtifactBytes[]): Promise<void> {
    try {
      await Promise.all(artifacts.map((a) => this.put(a.artifactId, a.body)));
    } catch (error) {
      counted('write', 'error', artifacts.length);
      throw new ObjectStoreUnavailableError('write a report file', error);
    }
    counted('write', 'ok', artifacts.length);
  }

  async restore(artifactId: string, body: Buffer): Promise<void> {
    await this.write([{ artifactId, body, sha256: sha256Hex(body) }]);
  }

  async get(artifactId: string): Promise<Buffer | undefined> {
    const file = this.file(artifactId);
    try {
      const bytes = await fs.promises.readFile(file);
      counted('read', 'ok');
      return bytes;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        counted('read', 'missing');
        return undefined;
      }
      counted('read', 'error');
      throw new ObjectStoreUnavailableError('read a report file', error);
    }
  }

  async delete(artifactIds: readonly string[]): Promise<void> {
    if (artifactIds.length === 0) return;
    const files = artifactIds.map((id) => this.file(id));
    try {
      await Promise.all(files.map((f) => fs.promises.rm(f, { force: true })));
    } catch (error) {
      counted('delete', 'error', artifactIds.length);
      throw new ObjectStoreUnavailableError('delete report files', error);
    }
    counted('delete', 'ok', artifactIds.length);
  }

  /** DATA_DIR must be writable, which the database's own check already asks. */
  async check(): Promise<void> {
    await fs.promises.mkdir(this.root, { recursive: true });
  }

  async stored(before: Date, after: string | undefined, limit: number): Promise<StoredPage> {
    try {
      return await this.page(before, after, limit);
    } catch (error) {
      throw new ObjectStoreUnavailableError('list report files', error);
    }
  }

  private async page(before: Date, after: string | undefined, limit: number): Promise<StoredPage> {
    const shards = (await readdirOrEmpty(this.root)).filter((s) => s.length === 2).sort();
    const artifactIds: string[] = [];
    let seen = 0;
    let last: string | undefined;
    const from = after?.slice(0, 2);
    for (const shard of shards) {
      if (from !== undefined && shard < from) continue;
      const names = (await readdirOrEmpty(path.join(this.root, shard))).sort();
      for (const name of names) {
        // A name outside its shard is not where `file` looks for it: the sweep could not delete it.
        if (!name.startsWith(shard) || !NAME.test(name)) continue;
        if (after !== undefined && name <= after) continue;
        last = name;
        const stat = await fs.promises.stat(path.join(this.root, shard, name)).catch(() => undefined);
        if (stat && stat.mtime < before) artifactIds.push(name);
        if (++seen >= limit) return { artifactIds, next: last };
      }
    }
    return { artifactIds, next: undefined };
  }

  async directLink(): Promise<string | undefined> {
    return undefined;
  }

  async close(): Promise<void> {}

  private async put(artifactId: string, body: Buffer): Promise<void> {
    const file = this.file(artifactId);
    try {
      await fs.promises.writeFile(file, body);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await fs.promises.mkdir(path.dirname(file), { recursive: true });
      await fs.promises.writeFile(file, body);
    }
  }
}

/**
 * Removes the report files an earlier `EMBEDDED_ARTIFACTS=files` left under DATA_DIR, one shard
 * at a time (each removal runs on libuv's threads, never the event loop), then the folder. After
 * a switch nothing reads them (a download renders the report again into today's store) and an
 * erasure would no longer reach them. Returns the number of files removed.
 */
export async function removeLeftArtifactFiles(dataDir: string): Promise<number> {
  const root = path.join(dataDir, ARTIFACT_FILES_DIR);
  let removed = 0;
  for (const entry of await readdirOrEmpty(root)) {
    const at = path.join(root, entry);
    const inside = await readdirOrEmpty(at).catch(() => [entry]);
    await fs.promises.rm(at, { recursive: true, force: true });
    removed += inside.length;
  }
  await fs.promises.rm(root, { recursive: true, force: true });
  return removed;
}

async function readdirOrEmpty(dir: string): Promise<string[]> {
  try {
    return await fs.promises.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
