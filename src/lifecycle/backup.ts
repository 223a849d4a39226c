import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { systemClock } from '../clock.js';
import { syncDirectory } from '../store/erasure-ledger.js';
import { MIGRATIONS } from '../store/migrations/index.js';
import { VERSION } from '../version.js';
import {
  type CopyFacts,
  type CopyMethod,
  copyStore,
  finaliseCopy,
  inspectCopy,
  inspectOnThread,
} from './backup-copy.js';

export const MANIFEST_FORMAT = 'healthspan-backup/1';

/** What `backup create` writes beside the copy, and `backup verify` checks it against. */
export interface BackupManifest extends CopyFacts {
  format: typeof MANIFEST_FORMAT;
  createdAt: string;
  serviceVersion: string;
  /** The copy's file name, in the manifest's directory. */
  file: string;
  sizeBytes: number;
  sha256: string;
  method: CopyMethod;
  /** How long the copy took. */
  seconds: number;
}

/** A backup that cannot be made, checked or restored, in one sentence; nothing was written. */
export class BackupError extends Error {}

export function manifestFile(copy: string): string {
  return `${copy}.manifest.json`;
}

async function sha256Of(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1 << 20 }))
    hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function syncFile(file: string): Promise<void> {
  const handle = await fsp.open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `text` to `file` through a temporary name and a rename: never a half-written file. */
async function writeDurably(file: string, text: string): Promise<void> {
  const partial = `${file}.partial`;
  await fsp.writeFile(partial, text, { mode: 0o600, flag: 'wx' });
  await syncFile(partial);
  await fsp.rename(partial, file);
}

/**
 * Copies the embedded store in `source` (the service may be running) to `target`: a temporary
 * name first, checked, synced and only then renamed, with its manifest beside it. The target
 * must not exist.
 */
export async function createBackup(
  source: string,
  target: string,
  opts: { method?: CopyMethod; now?: () => Date } = {},
): Promise<BackupManifest> {
  const method = opts.method ?? 'online';
  const now = opts.now ?? systemClock;
  if (fs.existsSync(target) || fs.existsSync(manifestFile(target))) {
    throw new BackupError(`${target} exists already: a backup never replaces a file; choose a new path`);
  }
  if (!fs.existsSync(source)) throw new BackupError(`there is no store at ${source} to back up`);
  const dir = path.dirname(target);
  if (!fs.existsSync(dir)) throw new BackupError(`the directory ${dir} does not exist; create it first`);
  const partial = `${target}.partial-${process.pid}`;
  const started = performance.now();
  const createdAt = now().toISOString();
  try {
    await copyStore(source, partial, method);
    finaliseCopy(partial);
    // The check on a thread while this one hashes and the disk takes the copy: each of the three
    // goes through the whole copy, and none waits for the others.
    const [facts, sha256] = await Promise.all([
      inspectOnThread(partial),
      sha256Of(partial),
      syncFile(partial),
    ]);
    const manifest: BackupManifest = {
      format: MANIFEST_FORMAT,
      createdAt,
      serviceVersion: VERSION,
      ...facts,
      file: path.basename(target),
      sizeBytes: (await fsp.stat(partial)).size,
      sha256,
      method,
      seconds: Math.round(performance.now() - started) / 1000,
    };
    await fsp.rename(partial, target);
    await writeDurably(manifestFile(target), `${JSON.stringify(manifest, null, 2)}\n`);
    await syncDirectory(dir);
    return manifest;
  } finally {
    await fsp.rm(partial, { force: true });
    await fsp.rm(`${partial}-journal`, { force: true });
  }
}

/** Reads and checks a backup: its manifest, size, hash, integrity and schema. */
export async function verifyBackup(copy: string): Promise<BackupManifest> {
  if (!fs.existsSync(copy)) throw new BackupError(`there is no backup at ${copy}`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(await fsp.readFile(manifestFile(copy), 'utf8')) as BackupManifest;
  } catch {
    throw new BackupError(
      `the backup ${copy} has no readable manifest (${path.basename(manifestFile(copy))})`,
    );
  }
  if (manifest.format !== MANIFEST_FORMAT)
    throw new BackupError(`${manifestFile(copy)} is not a backup manifest`);
  if (!(manifest.schemaVersion in MIGRATIONS)) {
    throw new BackupError(
      `the backup ${copy} has schema ${manifest.schemaVersion}, newer than this version (${VERSION}) knows: restore it with the version that made it (${manifest.serviceVersion}) or a later one`,
    );
  }
  const { size } = await fsp.stat(copy);
  if (size !== manifest.sizeBytes || (await sha256Of(copy)) !== manifest.sha256) {
    throw new BackupError(
      `the backup ${copy} is not the file its manifest describes (size or SHA-256 differ): it was cut or changed`,
    );
  }
  let facts: CopyFacts;
  try {
    facts = inspectCopy(copy);
  } catch (error) {
    throw new BackupError(`the backup ${copy} is damaged: ${error instanceof Error ? error.message : error}`);
  }
  if (facts.storeId !== manifest.storeId || facts.ledger.seq !== manifest.ledger.seq) {
    throw new BackupError(`the backup ${copy} does not hold the database its manifest names`);
  }
  return manifest;
}
