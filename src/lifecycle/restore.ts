import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { AuditOrigin } from '../domain/audit.js';
import { faultPoint } from '../fault-points.js';
import { partialName, syncDirectory, syncFile } from '../store/durable.js';
import { ledgerBookFor, Store } from '../store/index.js';
import { type LedgerContents, LedgerError } from '../store/ledger/index.js';
import { storeInUse } from '../store/sqlite/backup-copy.js';
import { sqliteFile } from '../store/sqlite/driver.js';
import { BackupError, type BackupManifest, removeLeftovers, verifyBackup } from './backup.js';
import { type ReplayReport, recordRestore, replayErasures } from './replay.js';

export interface RestoreReport {
  restored: string;
  backupCreatedAt: string;
  schemaVersion: string;
  /** Accounts whose trail records the restore (`backup.restored`). */
  accounts: number;
  replay: ReplayReport;
}

/** Refuses, creating nothing, when the erasure ledger cannot bring the backup up to date. */
async function checkLedger(config: Config, manifest: BackupManifest): Promise<void> {
  const ledger = ledgerBookFor(config).of(manifest.storeId);
  let contents: LedgerContents;
  try {
    contents = await ledger.read();
  } catch (error) {
    if (error instanceof LedgerError) throw new BackupError(`${error.message}; nothing was restored`);
    throw error;
  }
  if (contents.foreignStore !== undefined) {
    throw new BackupError(
      `the erasure ledger ${ledger.file} belongs to another database (store ${contents.foreignStore}), not the one this backup was taken of (store ${manifest.storeId}): set ERASURE_LEDGER to that database's ledger (nothing was restored)`,
    );
  }
  const { seq, head } = manifest.ledger;
  if (seq === 0) return;
  if (!contents.exists) {
    throw new BackupError(
      `the erasure ledger ${ledger.file} is missing, so the erasures made since this backup cannot be replayed; set ERASURE_LEDGER to it (nothing was restored)`,
    );
  }
  const applied = contents.entries.find((e) => e.seq === seq);
  if (!applied || applied.mac !== head) {
    throw new BackupError(
      `the erasure ledger ${ledger.file} does not hold this backup's last erasure entry (${seq}): it is another database's ledger, or it was cut (nothing was restored)`,
    );
  }
}

/** Refuses while any process has the store open: the service must be stopped. */
function assertStopped(file: string, dataDir: string): void {
  if (storeInUse(file)) {
    throw new BackupError(
      `the store in DATA_DIR=${dataDir} is in use (the service is running): stop every process using it, then restore (nothing was restored)`,
    );
  }
}

/**
 * Puts the backup's copy in place of the store's file, with no log left of the database before.
 * The copy is made under a temporary name (`partialName`: a killed restore's is removed by the
 * next restore or start) and renamed over the file in one step.
 */
async function putInPlace(copy: string, file: string): Promise<void> {
  const dir = path.dirname(file);
  await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
  const restoring = partialName(file);
  await fsp.rm(restoring, { force: true });
  try {
    await fsp.copyFile(copy, restoring, fs.constants.COPYFILE_EXCL);
    await syncFile(restoring);
    // The old database's log must not be applied to the restored one.
    await fsp.rm(`${file}-wal`, { force: true });
    await fsp.rm(`${file}-shm`, { force: true });
    await fsp.rename(restoring, file);
    await syncDirectory(dir);
  } finally {
    await fsp.rm(restoring, { force: true });
  }
}

/**
 * `backup restore` (the embedded store): checks the backup and the ledger, refuses while the
 * service runs, puts the copy in place, migrates it, records the restore in every account's
 * trail, and replays the erasure ledger, so nobody erased since the backup comes back.
 */
export async function restoreBackup(
  copy: string,
  config: Config,
  deps: { clock: Clock; logger: Logger; origin: AuditOrigin },
): Promise<RestoreReport> {
  if (config.databaseUrl !== undefined) {
    throw new BackupError(
      'backup restore is for the embedded store: on PostgreSQL restore with pg_restore, then run "healthspan-admin erasures replay" (docs/backup.md)',
    );
  }
  const manifest = await verifyBackup(copy);
  await checkLedger(config, manifest);
  const file = sqliteFile(config.dataDir);
  assertStopped(file, config.dataDir);
  await removeLeftovers(path.dirname(file));
  await putInPlace(copy, file);
  faultPoint('restore.in-place');
  deps.logger.info(
    { createdAt: manifest.createdAt, schemaVersion: manifest.schemaVersion },
    'backup restored',
  );
  const store = Store.open(config, { clock: deps.clock, logger: deps.logger, existing: true });
  try {
    await store.migrate();
    faultPoint('restore.migrated');
    const accounts = await recordRestore(store.system, deps.origin, deps.clock());
    faultPoint('restore.recorded');
    const replay = await replayErasures(store, { ...deps, leaseMs: config.jobLeaseSeconds * 1000 });
    return {
      restored: copy,
      backupCreatedAt: manifest.createdAt,
      schemaVersion: manifest.schemaVersion,
      accounts,
      replay,
    };
  } finally {
    await store.close();
  }
}
