import fs from 'node:fs';
import { Worker } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import { isSqliteBusy } from './busy.js';

/**
 * The embedded store's copies, as backups take and check them (lifecycle/backup.ts): the store's
 * door to SQLite for them, so that nothing outside store/ opens the database file.
 *
 * How a copy of the live store is taken: SQLite's online backup API in one step (`online`, the
 * default), or `VACUUM INTO` (`vacuum`). Both read one snapshot in one read transaction, which in
 * WAL mode never blocks the service's writers; `bench/backup.mjs` measures both
 * (docs/backup.md).
 */
export type CopyMethod = 'online' | 'vacuum';

/** What a copy holds, read from the copy itself once it passed its integrity check. */
export interface CopyFacts {
  schemaVersion: string;
  storeId: string;
  ledger: { seq: number; head: string };
}

/** Copies the store in `source` to the new file `target` (synchronously: a CLI or a thread). */
export async function copyStore(source: string, target: string, method: CopyMethod): Promise<void> {
  const db = new SqliteDatabase(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    if (method === 'vacuum') {
      db.prepare('vacuum into ?').run(target);
    } else {
      // Every page in one step: a step that copied part of the pages starts again whenever the
      // service commits meanwhile, which under a steady load it always does.
      await db.backup(target, { progress: () => 0x7fffffff });
    }
  } finally {
    db.close();
  }
}

/**
 * Whether a process has the store at `file` open: an exclusive lock is refused while another
 * connection holds the file (WAL mode keeps a lock while open). False when there is no file.
 */
export function storeInUse(file: string): boolean {
  if (!fs.existsSync(file)) return false;
  const db = new SqliteDatabase(file, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('begin exclusive');
    db.exec('commit');
    return false;
  } catch (error) {
    if (!isSqliteBusy(error)) throw error;
    return true;
  } finally {
    db.close();
  }
}

/** Leaves a copy in rollback-journal mode: a single file, as a backup should be. */
export function finaliseCopy(file: string): void {
  const db = new SqliteDatabase(file, { fileMustExist: true });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/** `inspectCopy` on a thread (`inspect-thread.ts`), leaving this one free. */
export function inspectOnThread(file: string): Promise<CopyFacts> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(new URL('./inspect-thread.js', import.meta.url), { workerData: { file } });
    thread.once('message', (reply: { ok: true; facts: CopyFacts } | { ok: false; message: string }) => {
      if (reply.ok) resolve(reply.facts);
      else reject(new Error(reply.message));
    });
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the check's thread exited (${code})`)));
  });
}

/**
 * Checks a copy (`PRAGMA integrity_check`, read-only) and reads what its manifest states about
 * it. Throws with SQLite's own words when the file is not a sound database.
 */
export function inspectCopy(file: string): CopyFacts {
  const db = new SqliteDatabase(file, { fileMustExist: true, readonly: true });
  try {
    const check = db.pragma('integrity_check') as Array<{ integrity_check: string }>;
    const verdict = check.map((row) => row.integrity_check).join('; ');
    if (verdict !== 'ok') throw new Error(`the integrity check failed: ${verdict.slice(0, 300)}`);
    const migration = db.prepare('select name from kysely_migration order by name desc limit 1').get() as
      | { name: string }
      | undefined;
    const state = db
      .prepare('select store_id, applied_seq, head from erasure_ledger_state where id = 1')
      .get() as { store_id: string; applied_seq: number; head: string } | undefined;
    if (!migration || !state) throw new Error('it is not a healthspan store');
    return {
      schemaVersion: migration.name,
      storeId: state.store_id,
      ledger: { seq: Number(state.applied_seq), head: state.head },
    };
  } finally {
    db.close();
  }
}
