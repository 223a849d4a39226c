import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Runs WAL checkpoints on a thread of their own. A checkpoint copies the write-ahead log into
 * the database file and fsyncs it; left to SQLite's automatic checkpoint it would run inside
 * some commit on the event loop and stall every request behind it. The main connection turns
 * automatic checkpoints off; this thread, with its own connection, checkpoints passively
 * (never blocking writers) every `intervalMs`, and truncates the log when it has grown large.
 */
export class WalCheckpointer {
  private readonly worker: Worker;

  constructor(file: string, intervalMs = 1000, truncateAboveBytes = 64 * 1024 * 1024) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.worker = new Worker(
      `
      const { workerData, parentPort } = require('node:worker_threads');
      const fs = require('node:fs');
      const Database = require(workerData.driver);
      const db = new Database(workerData.file);
      db.pragma('busy_timeout = 1000');
      const wal = workerData.file + '-wal';
      const tick = () => {
        try {
          const size = fs.existsSync(wal) ? fs.statSync(wal).size : 0;
          db.pragma(size > workerData.truncateAboveBytes ? 'wal_checkpoint(TRUNCATE)' : 'wal_checkpoint(PASSIVE)');
        } catch (error) {
          parentPort.postMessage({ error: String(error && error.message || error) });
        }
      };
      const timer = setInterval(tick, workerData.intervalMs);
      parentPort.on('message', (m) => {
        if (m === 'stop') { clearInterval(timer); tick(); db.close(); parentPort.close(); }
      });
      `,
      { eval: true, workerData: { file, driver, intervalMs, truncateAboveBytes } },
    );
    this.worker.unref();
  }

  /** Takes a last checkpoint and ends the thread. */
  async stop(): Promise<void> {
    // Referenced again so the process waits for the last checkpoint instead of exiting.
    this.worker.ref();
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.postMessage('stop');
    await Promise.race([exited, new Promise<void>((r) => setTimeout(r, 5000))]);
    await this.worker.terminate();
  }
}
