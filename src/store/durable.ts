import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

/**
 * Durable writes to files: the one place the service makes a file (or a change to one) survive a
 * crash or a power cut. The erasure ledger appends with `appendWhole`; backups and their
 * manifests take their names with `writeFileDurably` and `syncDirectory`.
 */

async function sync(target: string, flags: 'r' | 'r+'): Promise<void> {
  const handle = await fsp.open(target, flags);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Makes a new directory entry durable (a file created, renamed or removed in `dir`). */
export function syncDirectory(dir: string): Promise<void> {
  return sync(dir, 'r');
}

/** Puts a file's bytes on disk. */
export function syncFile(file: string): Promise<void> {
  return sync(file, 'r+');
}

/**
 * Writes every byte of `bytes` at the end of `handle` (opened to append): a write may take fewer
 * bytes than asked without failing (a file system filling up), so this writes until none is left
 * and throws the error that stopped it. It does not sync.
 */
export async function appendWhole(handle: fsp.FileHandle, bytes: Buffer): Promise<void> {
  let offset = 0;
  while (offset < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
    // Zero bytes and no error: nothing more will go in; say so as the file system would.
    if (bytesWritten === 0) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    offset += bytesWritten;
  }
}

/** A temporary name beside `file` that says which process wrote it (`leftoverPartials` finds it). */
export function partialName(file: string): string {
  return `${file}.partial-${process.pid}`;
}

/**
 * Writes `data` to the new file `file` through a temporary name (`partialName`), synced and
 * renamed, the directory synced: `file` never names a half-written file. Refuses (EEXIST) when
 * `file` exists.
 */
export async function writeFileDurably(file: string, data: string | Buffer): Promise<void> {
  const partial = partialName(file);
  try {
    await fsp.writeFile(partial, data, { mode: 0o600, flag: 'w' });
    await syncFile(partial);
    // A link, unlike a rename, never replaces a file that is there (EEXIST).
    await fsp.link(partial, file);
    await syncDirectory(path.dirname(file));
  } finally {
    await fsp.rm(partial, { force: true });
  }
}

/** Whether a process with this id runs on this machine (a signal 0 reaches it, or is refused). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const PARTIAL = /\.partial-(\d+)(?:-journal)?$/;

/**
 * The temporary files in `dir` that a killed process left (`partialName`, and SQLite's journal
 * beside one): their writer no longer runs, so nothing will finish or remove them.
 */
export function leftoverPartials(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((name) => {
      const pid = PARTIAL.exec(name)?.[1];
      return pid !== undefined && Number(pid) !== process.pid && !processAlive(Number(pid));
    })
    .map((name) => path.join(dir, name));
}
