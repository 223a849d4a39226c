import type { Kysely, Transaction } from 'kysely';
import { emit } from '../telemetry/events.js';
import { NOOP_SPAN, tracing } from '../telemetry/tracing.js';
import type { Database } from './database.js';
import type { PreparedRunner } from './prepared.js';

/**
 * A unit of work for the group commit: it runs in a transaction shared with other units, and
 * **it must be safe to run twice, in separate transactions, where the first attempt's writes
 * were rolled back**. A batch first runs all its units in one plain transaction; when one of
 * them fails (or the commit does), that transaction is rolled back and every unit of the batch
 * runs again, each in a savepoint of a new transaction (`CommitBatcher.flushQueue`), so only
 * the failing one fails. The database undoes the first attempt; nothing else does. So a unit:
 *
 * - writes only through `trx`, or does outside it only what may happen twice (a key file
 *   created on first use and then reused);
 * - keeps its in-memory effects in its return value (only the committed attempt's value is
 *   returned), or resets them when it starts (`Worker.runOne` empties its chained jobs and
 *   after-commit work);
 * - decides from what it reads in `trx`, never from what its first attempt saw or wrote;
 * - may use values made before it was submitted (rows, ids, rendered bytes, a clock reading):
 *   both attempts see the same ones.
 *
 * Each place that submits a unit says how it meets this (a comment starting "Commit unit:");
 * so does each step's `Completion` and `onFailed` (queue/types.ts), which run inside
 * the worker's units. SQLite's ingest writer retries its batches the same way
 * (`IngestBatchWriter`). `test/drivers/commit-units.test.ts` runs every kind of unit twice, the
 * first attempt rolled back, on both drivers, and finds the same outcome as one run.
 */
export type CommitUnit<T> = (trx: Transaction<Database>) => Promise<T>;

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Pending {
  work: CommitUnit<unknown>;
  lockKey: string | undefined;
  /** The submitter's trace context: its unit runs in it, so its queries join its trace. */
  trace: unknown;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** Where units of work are committed: one batcher (SQLite), or several lanes (PostgreSQL). */
export interface Committer {
  submit<T>(unit: CommitUnit<T>, options?: { urgent?: boolean; lockKey?: string }): Promise<T>;
  drain(): Promise<void>;
}

/**
 * Several batchers committing at once, each on its own pooled connection (PostgreSQL). One
 * batcher runs its transactions one after another, a network round trip per statement plus a
 * commit that waits for the WAL flush (holding the notification lock when it enqueued jobs),
 * so one alone caps a process at what one connection does in turn. Urgent units (a partner
 * waiting for its `202`) spread over the lanes; units with a `lockKey` (an idempotency key)
 * always take the same lane.
 *
 * Work nobody waits on (job claims and completions) has lanes of its own, where units that
 * arrive within a few milliseconds share one transaction: spread over the ingest lanes they
 * made transactions of one or two units, and the extra BEGIN/COMMIT round trips and WAL
 * flushes cost PostgreSQL a fifth more CPU per submission. A unit joins the first such lane
 * that is idle or has fewer than `OVERFLOW_AT` units waiting behind its running transaction, so
 * one lane takes everything while it keeps up (the largest batches), and the next only takes
 * work once the first falls behind: a lane runs its statements one after another, and one lane
 * alone capped the pipeline without reports at three quarters of what four did.
 */
/**
 * How long queue work may wait after the previous commit to share the next one. A submission
 * passes through four such commits (claim, validated, scored, rendered), so this is paid four
 * times in its latency: at 10 ms (SQLite) and 25 ms (PostgreSQL) a submission offered at 100/s
 * took 42 and 143 ms at the median, at 4 ms 17 and 24 ms. Under full load transactions are
 * back to back and batches large whatever the interval: the throughput and CPU per submission
 * measured the same (bench:pipeline, docs/performance-journal.md).
 */
export const QUEUE_COMMIT_INTERVAL_MS = 4;

/** Units queued behind a running transaction before queue work spills to the next lane. */
// 32 kept one lane for everything at 100 submissions/s, and a transaction carrying three reports'
// bytes held up the claims and completions behind it: p99 111-118 ms there, 91-93 ms at 8, for
// about 0.2 ms more PostgreSQL CPU per submission under full load.
const OVERFLOW_AT = 8;

export class CommitLanes implements Committer {
  private next = 0;

  constructor(
    private readonly lanes: readonly CommitBatcher[],
    private readonly background: readonly CommitBatcher[],
  ) {
    if (lanes.length === 0 || background.length === 0) throw new Error('CommitLanes needs lanes');
  }

  submit<T>(unit: CommitUnit<T>, options: { urgent?: boolean; lockKey?: string } = {}): Promise<T> {
    if (options.urgent !== true && options.lockKey === undefined) {
      return this.backgroundLane().submit(unit, options);
    }
    const index =
      options.lockKey === undefined
        ? this.next++ % this.lanes.length
        : hash(options.lockKey) % this.lanes.length;
    return this.lanes[index]!.submit(unit, options);
  }

  private backgroundLane(): CommitBatcher {
    let shortest = this.background[0]!;
    for (const lane of this.background) {
      if (!lane.busy || lane.waiting < OVERFLOW_AT) return lane;
      if (lane.waiting < shortest.waiting) shortest = lane;
    }
    return shortest;
  }

  async drain(): Promise<void> {
    await Promise.all([...this.lanes, ...this.background].map((lane) => lane.drain()));
  }
}

function hash(key: string): number {
  let h = 0;
  for (let i = 0; i < key.length; i++) h = (Math.imul(h, 31) + key.charCodeAt(i)) | 0;
  return Math.abs(h);
}

/**
 * The store's one write path, for ingest and workers alike: group commit. Everything
 * submitted during one turn of the event loop runs in one transaction, so one durable commit
 * covers many submissions, claims and job completions, and no promise settles before it.
 * Should a unit fail, the batch is rolled back and run again with a savepoint per unit, so
 * only that unit fails. Every unit of such a batch therefore runs twice (`CommitUnit`).
 */
export class CommitBatcher implements Committer {
  private queue: Pending[] = [];
  private scheduled: false | 'soon' | 'later' = false;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private lastCommitAt = Number.NEGATIVE_INFINITY;
  private flushingNow = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly runner: PreparedRunner,
    private readonly maxBatch = 256,
    private readonly minIntervalMs = QUEUE_COMMIT_INTERVAL_MS,
  ) {}

  /**
   * Queues a unit of work (which may run twice: `CommitUnit`) for the next commit. `urgent`
   * work (a partner waiting for its 202) is committed at the next turn of the event loop. Other
   * work (job claims and completions) may wait until `minIntervalMs` after the previous commit:
   * each commit costs a flush of the log, and work arriving in a trickle (reports finishing one
   * by one on other threads) then shares a commit instead of paying one each.
   *
   * `lockKey` names the row a unit may have to wait for because another process writes it too
   * (an idempotency key). A batch runs its keyed units in key order: two processes' batches
   * then take such rows in the same order and cannot wait on each other in a cycle, which
   * PostgreSQL would break by aborting one of them (a deadlock).
   */
  submit<T>(unit: CommitUnit<T>, options: { urgent?: boolean; lockKey?: string } = {}): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        work: unit as CommitUnit<unknown>,
        lockKey: options.lockKey,
        trace: tracing().capture(),
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      const urgent = options.urgent === true;
      if (this.scheduled === 'soon' || (this.scheduled === 'later' && !urgent)) return;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      const wait = urgent ? 0 : this.lastCommitAt + this.minIntervalMs - performance.now();
      if (wait > 0) {
        this.scheduled = 'later';
        this.timer = setTimeout(() => this.run(), wait);
      } else {
        this.scheduled = 'soon';
        setImmediate(() => this.run());
      }
    });
  }

  private run(): void {
    this.timer = undefined;
    this.flushing = this.flushing.then(() => this.flush());
  }

  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.scheduled) {
      await new Promise((r) => setImmediate(r));
      await this.flushing;
    }
    await this.flushing;
  }

  /** True while a transaction of this batcher is running. */
  get busy(): boolean {
    return this.flushingNow;
  }

  /** Units waiting for the next transaction. */
  get waiting(): number {
    return this.queue.length;
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    this.flushingNow = true;
    try {
      await this.flushQueue();
    } finally {
      this.flushingNow = false;
    }
  }

  private async flushQueue(): Promise<void> {
    while (this.queue.length > 0) {
      // Stable: units with equal keys (duplicates) and unkeyed units keep their order.
      const batch = this.queue.splice(0, this.maxBatch).sort(byLockKey);
      const started = performance.now();
      const t = tracing();
      // A batch serves many submitters: its span hangs in the first one's trace, and none is made
      // for work outside any trace (idle claims). SQLite has no query spans, so this is where its
      // commits show; PostgreSQL's queries nest in the spans of the units that ran them.
      const span = t.enabled
        ? t.restore(batch[0]?.trace, () =>
            t.start('db.commit', {
              requireParent: true,
              attributes: { 'healthspan.batch.units': batch.length },
            }),
          )
        : NOOP_SPAN;
      let outcomes: Outcome[];
      try {
        // Optimistic: the whole batch as one plain transaction. If any unit fails, it is rolled
        // back and run again with one savepoint per unit, so only the failing unit fails.
        outcomes = await t.within(span, () =>
          this.db.transaction().execute(async (trx) => {
            const values: Outcome[] = [];
            for (const p of batch) values.push({ ok: true, value: await runUnit(p, trx) });
            return values;
          }),
        );
      } catch {
        try {
          outcomes = await t.within(span, () =>
            this.db.transaction().execute((trx) => this.isolated(trx, batch)),
          );
        } catch (error) {
          this.lastCommitAt = performance.now();
          span.fail(error);
          span.end();
          for (const p of batch) p.reject(error);
          continue;
        }
      }
      this.lastCommitAt = performance.now();
      span.end();
      emit('db.commit', { units: batch.length, seconds: (this.lastCommitAt - started) / 1000 });
      for (const [i, p] of batch.entries()) {
        const outcome = outcomes[i]!;
        if (outcome.ok) p.resolve(outcome.value);
        else p.reject(outcome.error);
      }
    }
  }

  private async isolated(trx: Transaction<Database>, batch: Pending[]): Promise<Outcome[]> {
    const outcomes: Outcome[] = [];
    for (const p of batch) {
      // One name serves every unit: each savepoint is released before the next opens.
      await this.runner.exec(trx, 'savepoint batch_item');
      try {
        outcomes.push({ ok: true, value: await runUnit(p, trx) });
        await this.runner.exec(trx, 'release savepoint batch_item');
      } catch (error) {
        await this.runner.exec(trx, 'rollback to savepoint batch_item');
        await this.runner.exec(trx, 'release savepoint batch_item');
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }
}

function runUnit(p: Pending, trx: Transaction<Database>): Promise<unknown> {
  return p.trace === undefined ? p.work(trx) : tracing().restore(p.trace, () => p.work(trx));
}

function byLockKey(a: Pending, b: Pending): number {
  if (a.lockKey === b.lockKey) return 0;
  if (a.lockKey === undefined) return 1;
  if (b.lockKey === undefined) return -1;
  return a.lockKey < b.lockKey ? -1 : 1;
}
