import { parentPort, workerData } from 'node:worker_threads';
import type { CopyMethod } from '../store/sqlite/backup-copy.js';
import { createBackup } from './backup.js';

/**
 * A scheduled backup, on a thread of its own: the copy and its integrity check are synchronous
 * SQLite calls that would otherwise hold the service's event loop for their whole length.
 */
const { source, target, method, createdAt } = workerData as {
  source: string;
  target: string;
  method: CopyMethod;
  /** The service clock's time of the backup (the thread has no clock of its own). */
  createdAt: string;
};
createBackup(source, target, { method, now: () => new Date(createdAt) }).then(
  (manifest) => parentPort?.postMessage({ ok: true, manifest }),
  (error: unknown) =>
    parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) }),
);
