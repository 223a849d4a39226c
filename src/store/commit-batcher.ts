import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';
import type { PreparedRunner } from './prepared.js';

type Work<T> = (trx: Transaction<Database>) => Promise<T>;

interface Pending {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/**
 * The store's one write path for ingest and workers alike. Group commit for units of work: everything submitted during one turn of the event
 * loop runs in one transaction, each unit inside its own savepoint, so one durable commit
 * covers many job completions and a failing unit only undoes itself. Promises settle after
 * the commit.
 */
export class CommitBatcher {
  private queue: Pending[] = [];
  private scheduled = false;
  private flushing: Promise<void> = Promise.resolve();
  private lastCommitAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly runner: PreparedRunner,
    private readonly maxBatch = 256,
    private readonly minIntervalMs = 20,
  ) {}

  submit<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ work: work as Work<unknown>, resolve: resolve as (v: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        const run = () => {
          this.flushing = this.flushing.then(() => this.flush());
        };
        // Each commit costs an fsync that blocks the thread, so commits are spaced at least
        // `minIntervalMs` apart: work arriving in a trickle (say, reports finishing one by one
        // on other threads) shares a commit instead of paying one each.
        const wait = this.lastCommitAt + this.minIntervalMs - performance.now();
        if (wait > 0) setTimeout(run, wait);
        else setImmediate(run);
      }
    });
  }

  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.scheduled) {
      await new Promise((r) => setImmediate(r));
      await this.flushing;
    }
    await this.flushing;
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      const outcomes: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
      try {
        await this.db.transaction().execute(async (trx) => {
          for (const p of batch) {
            // One name serves every item: each savepoint is released before the next opens.
            await this.runner.exec(trx, 'savepoint batch_item');
            try {
              outcomes.push({ ok: true, value: await p.work(trx) });
              await this.runner.exec(trx, 'release savepoint batch_item');
            } catch (error) {
              await this.runner.exec(trx, 'rollback to savepoint batch_item');
              await this.runner.exec(trx, 'release savepoint batch_item');
              outcomes.push({ ok: false, error });
            }
          }
        });
      } catch (error) {
        this.lastCommitAt = performance.now();
        for (const p of batch) p.reject(error);
        continue;
      }
      this.lastCommitAt = performance.now();
      for (const [i, p] of batch.entries()) {
        const outcome = outcomes[i]!;
        if (outcome.ok) p.resolve(outcome.value);
        else p.reject(outcome.error);
      }
    }
  }
}
