import fs from 'node:fs';
import path from 'node:path';

/**
 * Makes commits durable off the event loop. The event loop's connection runs with
 * `synchronous=NORMAL`, so SQLite appends a commit to the write-ahead log without waiting for the
 * disk; this then flushes the log with `fdatasync` on libuv's thread pool, and whoever committed
 * is answered only after it returns. That is what `synchronous=FULL` does inside `COMMIT`, minus
 * the blocked thread: the same frames reach the disk before the same acknowledgement
 * (checkpoints sync the log and the database file themselves in both modes).
 *
 * Syncs are shared: a commit that finds one running waits for the next, which starts when the
 * running one ends (the running one may have begun before its frames were written), and every
 * commit that arrives meanwhile shares that next one.
 */
export class WalSync {
  private fd: number | undefined;
  private directorySynced = false;
  private running: Promise<void> | undefined;
  private queued: Promise<void> | undefined;

  constructor(private readonly databaseFile: string) {}

  /** Resolves once everything written to the log before the call is on disk. */
  sync(): Promise<void> {
    if (this.running === undefined) return this.start();
    this.queued ??= this.running.then(
      () => this.startQueued(),
      () => this.startQueued(),
    );
    return this.queued;
  }

  private startQueued(): Promise<void> {
    this.queued = undefined;
    return this.start();
  }

  private start(): Promise<void> {
    const running = this.flush().finally(() => {
      if (this.running === running) this.running = undefined;
    });
    this.running = running;
    return running;
  }

  private async flush(): Promise<void> {
    const fd = this.open();
    // No log yet: nothing has been written in WAL mode since the database was opened.
    if (fd === undefined) return;
    await new Promise<void>((resolve, reject) =>
      fs.fdatasync(fd, (error) => (error ? reject(error) : resolve())),
    );
    if (!this.directorySynced) {
      // The log's directory entry, once: a file created since the last sync of its directory
      // may not survive a power loss however often its contents were synced.
      const dir = fs.openSync(path.dirname(this.databaseFile), 'r');
      try {
        await new Promise<void>((resolve, reject) =>
          fs.fsync(dir, (error) => (error ? reject(error) : resolve())),
        );
      } finally {
        fs.closeSync(dir);
      }
      this.directorySynced = true;
    }
  }

  /**
   * The log file, opened once it exists (SQLite creates it with the first write) and kept open:
   * it is the same file for the connection's lifetime (checkpoints restart or truncate it in
   * place; only the last connection's close removes it).
   */
  private open(): number | undefined {
    if (this.fd === undefined) {
      try {
        this.fd = fs.openSync(`${this.databaseFile}-wal`, 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    }
    return this.fd;
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}
