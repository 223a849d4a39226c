import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Clock } from '../clock.js';
import { faultPoint } from '../fault-points.js';
import {
  leftoverPartials,
  partialName,
  syncDirectory,
  syncFile,
  writeFileDurably,
} from '../store/durable.js';
import { MIGRATIONS } from '../store/migrations/index.js';
import {
  type CopyFacts,
  type CopyMethod,
  copyStore,
  finaliseCopy,
  inspectCopy,
  inspectOnThread,
} from '../store/sqlite/backup-copy.js';
import { VERSION } from '../version.js';

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

/** The files a killed backup left, removed by the next one: their names, and the bytes they held. */
export interface LeftoverReport {
  removed: string[];
  bytes: number;
}

/**
 * Removes what killed backups left in `dir`: their temporary copies (full copies of the
 * database, health data included) and their manifests' temporary files, when the process that
 * wrote them no longer runs (`leftoverPartials`); and `orphans`, manifests whose copy never took
 * its name.
 */
export async function removeLeftovers(dir: string, orphans: string[] = []): Promise<LeftoverReport> {
  const report: LeftoverReport = { removed: [], bytes: 0 };
  for (const file of [...leftoverPartials(dir), ...orphans]) {
    try {
      const { size } = await fsp.stat(file);
      await fsp.rm(file, { force: true });
      report.removed.push(path.basename(file));
      report.bytes += size;
    } catch {
      // Gone meanwhile (another process removed it): nothing left to report.
    }
  }
  if (report.removed.length > 0) await syncDirectory(dir);
  return report;
}

/** The manifest at `target`'s name when its copy never took its name: a backup killed in between. */
export function orphanManifest(target: string): string[] {
  return fs.existsSync(manifestFile(target)) && !fs.existsSync(target) ? [manifestFile(target)] : [];
}

function existsAlready(target: string): BackupError {
  return new BackupError(`${target} exists already: a backup never replaces a file; choose a new path`);
}

/** Refuses, writing nothing, a target that cannot become a new backup. */
function checkTarget(source: string, target: string): void {
  if (fs.existsSync(target)) {
    throw existsAlready(target);
  }
  if (!fs.existsSync(source)) throw new BackupError(`there is no store at ${source} to back up`);
  const dir = path.dirname(target);
  if (!fs.existsSync(dir)) throw new BackupError(`the directory ${dir} does not exist; create it first`);
}

/**
 * Copies the embedded store in `source` (the service may be running) to `target`: a temporary
 * name first, checked and synced; then its manifest takes its name, and only then the copy takes
 * `target`, so a name that is there always verifies. What killed backups left in the directory is
 * removed first (`leftovers`). The target must not exist.
 */
export async function createBackup(
  source: string,
  target: string,
  opts: { method?: CopyMethod; now: Clock },
): Promise<BackupManifest & { leftovers: LeftoverReport }> {
  const method = opts.method ?? 'online';
  const { now } = opts;
  checkTarget(source, target);
  const dir = path.dirname(target);
  const leftovers = await removeLeftovers(dir, orphanManifest(target));
  const partial = partialName(target);
  const started = performance.now();
  const createdAt = now().toISOString();
  try {
    await copyStore(source, partial, method);
    finaliseCopy(partial);
    faultPoint('backup.copied');
    // The check on a thread while this one hashes and the disk takes the copy: each of the three
    // goes through the whole copy, and none waits for the others.
    const [facts, sha256] = await Promise.all([
      inspectOnThread(partial),
      sha256Of(partial),
      syncFile(partial),
    ]);
    faultPoint('backup.checked');
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
    await writeFileDurably(manifestFile(target), `${JSON.stringify(manifest, null, 2)}\n`);
    faultPoint('backup.manifest-written');
    await nameCopy(partial, target);
    faultPoint('backup.named');
    return { ...manifest, leftovers };
  } finally {
    await fsp.rm(partial, { force: true });
    await fsp.rm(`${partial}-journal`, { force: true });
  }
}

/** The checked copy takes its name, never over a file that is there (a link, then the temporary name goes). */
async function nameCopy(partial: string, target: string): Promise<void> {
  try {
    await fsp.link(partial, target);
  } catch (error) {
    await fsp.rm(manifestFile(target), { force: true });
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
      throw existsAlready(target);
    }
    throw error;
  }
  await fsp.rm(partial);
  await syncDirectory(path.dirname(target));
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
