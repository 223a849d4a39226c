/** SQLite answered that another connection holds the lock (`SQLITE_BUSY` or one of its kinds). */
export function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}

const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Runs a statement that SQLite may refuse with `SQLITE_BUSY` without calling the busy handler,
 * as switching a fresh file to WAL does while another process switches it too, asking again
 * every 20 ms until `timeoutMs` has passed. Blocks the thread: only for opening a store.
 */
export function retryWhileBusy<T>(run: () => T, timeoutMs: number): T {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return run();
    } catch (error) {
      if (!isSqliteBusy(error) || Date.now() > deadline) throw error;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}
