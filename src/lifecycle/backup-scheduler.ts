import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Clock } from '../clock.js';
import type { MaintenanceService, PassReport } from '../queue/maintenance/service.js';
import { emit } from '../telemetry/events.js';
import {
  type BackupManifest,
  type LeftoverReport,
  manifestFile,
  orphanManifest,
  removeLeftovers,
} from './backup.js';

const NAME = /^healthspan-(\d{8}T\d{6}Z)\.sqlite$/;

/** The scheduled backups in `dir`, newest first, with their manifests (a copy without one is not a backup). */
export function listBackups(dir: string): Array<{ file: string; manifest: BackupManifest }> {
  if (!fs.existsSync(dir)) return [];
  const found: Array<{ file: string; manifest: BackupManifest }> = [];
  for (const name of fs.readdirSync(dir).filter((n) => NAME.test(n))) {
    const file = path.join(dir, name);
    try {
      found.push({
        file,
        manifest: JSON.parse(fs.readFileSync(manifestFile(file), 'utf8')) as BackupManifest,
      });
    } catch {
      // Not finished (no manifest yet), or not ours: not a backup to count on.
    }
  }
  return found.sort((a, b) => b.manifest.createdAt.localeCompare(a.manifest.createdAt));
}

/** Manifests of scheduled backups whose copy never took its name (a backup killed in between). */
function orphanManifests(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((name) => name.replace(/\.manifest\.json$/, ''))
    .filter((name) => NAME.test(name))
    .flatMap((name) => orphanManifest(path.join(dir, name)));
}

/** When the newest backup in `dir` was taken, in Unix seconds; undefined while there is none. */
export function lastBackupSeconds(dir: string): number | undefined {
  const newest = listBackups(dir)[0];
  return newest ? Date.parse(newest.manifest.createdAt) / 1000 : undefined;
}

function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** Runs one backup on a thread (`backup-thread.ts`); the manifest, or the thread's error. */
function backupOnThread(
  source: string,
  target: string,
  createdAt: Date,
): Promise<BackupManifest & { leftovers: LeftoverReport }> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(new URL('./backup-thread.js', import.meta.url), {
      workerData: { source, target, method: 'online', createdAt: createdAt.toISOString() },
    });
    thread.once(
      'message',
      (
        reply:
          | { ok: true; manifest: BackupManifest & { leftovers: LeftoverReport } }
          | { ok: false; message: string },
      ) => {
        if (reply.ok) resolve(reply.manifest);
        else reject(new Error(reply.message));
      },
    );
    thread.once('error', reject);
    thread.once('exit', (code) => reject(new Error(`the backup thread exited (${code})`)));
  });
}

/**
 * Scheduled backups of the embedded store (`BACKUP_DIR`, `BACKUP_INTERVAL`, `BACKUP_KEEP`): a pass
 * backs up when the newest backup is older than the interval, so a restart does not add one, then
 * keeps the newest `keep`. Each backup is written under a temporary name and renamed once checked
 * (`createBackup`): never a half-written file under a backup's name. Every pass first removes
 * what killed backups left in `dir` (temporary copies, manifests without their copy) and reports
 * them (`leftovers`).
 */
export class BackupScheduler implements MaintenanceService {
  readonly name = 'backup';

  constructor(
    private readonly o: { source: string; dir: string; intervalMs: number; keep: number; clock: Clock },
  ) {}

  get intervalMs(): number {
    // Checked often enough that a backup is at most a tenth of an interval late.
    return Math.max(1000, Math.min(this.o.intervalMs / 10, 60_000));
  }

  async runOnce(): Promise<PassReport> {
    const { dir, intervalMs, clock } = this.o;
    const left = await removeLeftovers(dir, orphanManifests(dir));
    const leftovers = left.removed.length;
    if (leftovers > 0) {
      emit('backup.leftovers', { files: leftovers, bytes: left.bytes });
    }
    const newest = listBackups(dir)[0];
    const now = clock();
    if (newest && now.getTime() - Date.parse(newest.manifest.createdAt) < intervalMs) {
      return { written: 0, deleted: 0, leftovers };
    }
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    const started = performance.now();
    try {
      await backupOnThread(this.o.source, path.join(dir, `healthspan-${stamp(now)}.sqlite`), now);
    } catch (error) {
      emit('backup.finished', {
        outcome: 'failed',
        seconds: (performance.now() - started) / 1000,
        finishedAtMs: clock().getTime(),
      });
      throw error;
    }
    emit('backup.finished', {
      outcome: 'ok',
      seconds: (performance.now() - started) / 1000,
      finishedAtMs: clock().getTime(),
    });
    return { written: 1, deleted: await this.prune(), leftovers };
  }

  /** Deletes all but the newest `keep` backups, each with its manifest. */
  private async prune(): Promise<number> {
    const old = listBackups(this.o.dir).slice(this.o.keep);
    for (const { file } of old) {
      await fsp.rm(manifestFile(file), { force: true });
      await fsp.rm(file, { force: true });
    }
    return old.length;
  }
}
