/**
 * Whose turn it is to write, within one process: the event loop's connection (its transactions
 * and single writing statements) and the ingest thread's batches take turns, first come first
 * served. SQLite allows one writer at a time; without turns the event loop's connection would
 * meet the thread's lock and wait in SQLite's busy handler, blocking the loop, or lose the race
 * to a thread that writes batch after batch. Other processes (the CLI, a second service process)
 * are still met at SQLite's lock.
 */
export class WriteTurns {
  private held = false;
  private readonly waiting: Array<() => void> = [];

  acquire(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Someone waits for the turn: its holder should finish what it started and let go. */
  get contended(): boolean {
    return this.waiting.length > 0;
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.held = false;
  }
}
