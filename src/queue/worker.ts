import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { outsideContext, runInContext, type WorkContext, workContext } from '../context.js';
import type { JobNotifier } from '../jobs/notifier.js';
import type { ClaimedJob } from '../jobs/types.js';
import type { Committer } from '../store/commit-batcher.js';
import type { JobsRepository } from '../store/repositories/jobs.js';
import { emit, type TelemetryEvents } from '../telemetry/events.js';
import { inSpan, type TraceSpan } from '../telemetry/tracing.js';
import { WORKER_DEFAULTS } from './defaults.js';
import { type FailurePlan, logFailure, planFailure, type RetryPolicy, recordFailure } from './failure.js';
import type { JobKinds } from './kinds.js';
import type { ClaimPacer } from './pacing.js';
import { type Completion, type JobDefinition, PermanentJobError } from './types.js';

/** What a worker needs of the store: the job table, the group commit and the wake-ups. */
export interface QueueStore {
  jobs: JobsRepository;
  batcher: Committer;
  notifier: JobNotifier;
}

export interface WorkerOptions {
  store: QueueStore;
  kinds: JobKinds;
  logger: Logger;
  /** The service's clock: due times, leases, retry delays, and what steps stamp. */
  clock: Clock;
  /** Jobs in flight at once in this process. */
  concurrency?: number;
  /** Lease length; a dead worker's job is rescued (`Rescuer`) once it has run out. */
  leaseMs?: number;
  /** How often held leases are extended; a third of the lease unless given. */
  heartbeatMs?: number;
  /** Safety-net poll; in-process enqueues and PostgreSQL notifications wake the worker at once. */
  pollMs?: number;
  /** First retry delay; doubles per attempt, with jitter, up to `retryCapMs`. */
  retryBaseMs?: number;
  retryCapMs?: number;
  workerId?: string;
  /** Yields to the front door in the same process (issue 32); full concurrency without one. */
  pacer?: ClaimPacer;
}

/** A third of the lease, so two beats can be missed before it runs out; at least 500 ms. */
function heartbeatFor(leaseMs: number): number {
  return Math.max(500, Math.floor(leaseMs / 3));
}

class LeaseLost extends Error {}

function attemptEnded(job: ClaimedJob, outcome: TelemetryEvents['job.attempt']['outcome'], ms: number): void {
  emit('job.attempt', { type: job.type, outcome, seconds: ms / 1000 });
}

/**
 * Claims jobs with a lease, runs them with bounded concurrency, extends leases with a heartbeat
 * and retries failures with exponential backoff and jitter. Each attempt runs in a work context
 * built from its job row (the ids of the request that caused it), so its log lines, and those of
 * the jobs it enqueues, join up with that request's. Rescuing jobs whose worker died is a
 * maintenance service of its own (`maintenance/rescuer.ts`).
 */
export class Worker {
  readonly workerId: string;
  private readonly running = new Map<
    string,
    { job: ClaimedJob; abort: AbortController; done: Promise<void> }
  >();
  private readonly timers: NodeJS.Timeout[] = [];
  private recheck: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private claiming = false;
  /** The claim in progress, if any: `stop` lets it finish, and waits for the jobs it started. */
  private claimRun: Promise<void> = Promise.resolve();
  private claimAgain = false;
  /**
   * Due jobs may be waiting unclaimed: set by every wake-up (a notification, the poll), cleared
   * when a claim found fewer than it asked for. A job that ends claims again only while it is
   * set, so a worker that drained the queue does not run an empty claim (a transaction and a
   * commit) each time one of its jobs finishes.
   */
  private mayHaveWork = true;
  private stopping = false;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly kinds: string[];
  private readonly concurrency: number;
  private readonly leaseMs: number;
  private readonly heartbeatMs: number;
  private readonly pollMs: number;
  private readonly retry: RetryPolicy;
  private readonly stopHooks: Array<() => Promise<void> | undefined> = [];
  private started = false;
  /** The last queue read that failed, cleared by the next one that succeeds. */
  private queueError: string | undefined;

  constructor(private readonly o: WorkerOptions) {
    this.workerId = o.workerId ?? `worker-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.clock = o.clock;
    this.logger = o.logger;
    this.kinds = o.kinds.names();
    this.concurrency = o.concurrency ?? WORKER_DEFAULTS.concurrency;
    this.leaseMs = o.leaseMs ?? WORKER_DEFAULTS.leaseMs;
    this.heartbeatMs = o.heartbeatMs ?? heartbeatFor(this.leaseMs);
    this.pollMs = o.pollMs ?? WORKER_DEFAULTS.pollMs;
    this.retry = {
      retryBaseMs: o.retryBaseMs ?? WORKER_DEFAULTS.retryBaseMs,
      retryCapMs: o.retryCapMs ?? WORKER_DEFAULTS.retryCapMs,
    };
  }

  start(): void {
    this.started = true;
    this.unsubscribe = this.o.store.notifier.subscribe(() => this.wake());
    this.timers.push(setInterval(() => this.wake(), this.pollMs));
    this.timers.push(setInterval(() => void this.heartbeat(), this.heartbeatMs));
    for (const t of this.timers) t.unref();
    this.wake();
  }

  /** For `/ready`: running, and its last read of the queue succeeded. */
  health(): { ok: boolean; reason?: string } {
    if (!this.started) return { ok: false, reason: 'worker not started' };
    if (this.stopping) return { ok: false, reason: 'worker stopping' };
    if (this.queueError) return { ok: false, reason: `job queue unavailable (${this.queueError})` };
    return { ok: true };
  }

  /** Runs after the worker stopped (releases resources its steps use, such as thread pools). */
  onStopped(hook: () => Promise<void> | undefined): void {
    this.stopHooks.push(hook);
  }

  /**
   * Stops claiming, lets running jobs finish for up to `graceMs`, then aborts the rest and
   * hands their leases back (without counting the attempt) so another worker takes them now.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    for (const t of this.timers) clearInterval(t);
    clearTimeout(this.recheck);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<true>((r) => {
      timer = setTimeout(() => r(true), graceMs);
    });
    // Until none is left: a job that completes meanwhile may start the next step it had claimed
    // in its commit (chained before `stopping` was seen), and that one is waited for too.
    let timedOut = false;
    await Promise.race([this.claimRun, graceOver]);
    while (this.running.size > 0 && !timedOut) {
      const all = Promise.all([...this.running.values()].map((r) => r.done));
      timedOut = await Promise.race([all.then(() => false), graceOver]);
    }
    clearTimeout(timer);
    while (this.running.size > 0) {
      const left = [...this.running.values()];
      for (const r of left) r.abort.abort();
      await Promise.allSettled(left.map((r) => r.done));
    }
    await Promise.allSettled(this.stopHooks.map((hook) => hook()));
  }

  /** New work may be due: a notification, the poll or the start. */
  private wake(): void {
    this.mayHaveWork = true;
    this.kick();
  }

  private kick(): void {
    if (this.stopping || !this.mayHaveWork) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = true;
    // Kicked from within a request or a job (an enqueue, a completion): the claim loop is the
    // worker's own, and the jobs it claims each run in their own context.
    this.claimRun = outsideContext(() => this.claimLoop()).finally(() => {
      this.claiming = false;
      if (this.claimAgain && !this.stopping) {
        this.claimAgain = false;
        this.kick();
      }
    });
  }

  private async claimLoop(): Promise<void> {
    try {
      while (!this.stopping) {
        const free = this.allowedInFlight() - this.running.size;
        if (free <= 0) return;
        // Cleared before the claim: a wake-up while it runs sets it again (and claims again).
        this.mayHaveWork = false;
        const claimed = await this.claimAndStart(free);
        this.queueError = undefined;
        for (const job of claimed) this.execute(job);
        if (claimed.length < free) return;
        this.mayHaveWork = true;
      }
    } catch (error) {
      this.mayHaveWork = true;
      this.queueError = error instanceof Error ? error.constructor.name : 'error';
      this.logger.error({ err: error }, 'claiming jobs failed; will retry on the next poll');
    }
  }

  /**
   * The pacer's concurrency for this claim. When it holds the worker back, a one-shot recheck
   * brings full speed back once the door is quiet (completions and the poll kick it too).
   */
  private allowedInFlight(): number {
    const pacer = this.o.pacer;
    if (!pacer) return this.concurrency;
    const allowed = pacer.concurrency(this.concurrency);
    if (allowed < this.concurrency && this.recheck === undefined) {
      this.recheck = setTimeout(() => {
        this.recheck = undefined;
        this.kick();
      }, pacer.recheckMs);
      this.recheck.unref();
    }
    return allowed;
  }

  /** The pacer holds the worker back now (the front door is busy). */
  private doorBusy(): boolean {
    return this.o.pacer !== undefined && this.o.pacer.concurrency(this.concurrency) < this.concurrency;
  }

  /**
   * Claims jobs and records that they started (their submissions' start statuses) in one
   * transaction: one commit for the whole claim.
   */
  private async claimAndStart(limit: number): Promise<ClaimedJob[]> {
    const { jobs, batcher } = this.o.store;
    // Commit unit: the claim and its start statuses write through `trx` only; the jobs claimed are
    // its return value, so an attempt rolled back claimed nothing.
    return batcher.submit(async (trx) => {
      const now = this.clock();
      const claimed = await jobs.claim(trx, this.workerId, this.kinds, limit, this.leaseMs, now);
      await jobs.setStatuses(trx, this.startStatuses(claimed), now);
      return claimed;
    });
  }

  /** The submissions of `claimed` by the status each takes as its job starts. */
  private startStatuses(claimed: readonly ClaimedJob[]): Map<string, string[]> {
    const starts = new Map<string, string[]>();
    for (const job of claimed) {
      const status = this.o.kinds.get(job.type)?.startStatus;
      if (status === undefined || job.submissionId === null) continue;
      const ids = starts.get(status) ?? [];
      ids.push(job.submissionId);
      starts.set(status, ids);
    }
    return starts;
  }

  /** Runs a claimed job; `handOver` only for the successor a completing job chained (`runOne`). */
  private execute(job: ClaimedJob, handOver?: unknown): void {
    const abort = new AbortController();
    const entry = { job, abort, done: Promise.resolve() };
    this.running.set(job.id, entry);
    const context = jobContext(job, this.logger, this.clock);
    // A consumer span continuing the trace of the work that enqueued the job (its row keeps it).
    const span = {
      kind: 'consumer' as const,
      parent: { traceparent: job.traceparent },
      attributes: {
        'healthspan.job.id': job.id,
        'healthspan.job.type': job.type,
        'healthspan.job.attempt': job.attempt,
        'healthspan.tenant.id': job.tenantId,
        'healthspan.submission.id': job.submissionId ?? undefined,
      },
    };
    entry.done = runInContext(context, () =>
      inSpan(`job ${job.type}`, span, (attempt) =>
        this.runOne(job, abort.signal, context, attempt, handOver),
      ),
    ).finally(() => {
      this.running.delete(job.id);
      this.kick();
    });
  }

  private async runOne(
    job: ClaimedJob,
    signal: AbortSignal,
    context: WorkContext,
    span: TraceSpan,
    handOver: unknown,
  ): Promise<void> {
    const { notifier } = this.o.store;
    const def = this.o.kinds.get(job.type);
    const started = performance.now();
    try {
      if (!def) throw new PermanentJobError('No worker can run this kind of step.');
      const completion = await def.run(job, {
        signal,
        clock: this.clock,
        log: context.log,
        handOver,
      });
      if (signal.aborted) throw new LeaseLost();
      const { chained, unclaimed, afterCommit } = await this.commitCompletion(job, def, completion);
      const ms = performance.now() - started;
      context.log.info({ ms: Math.round(ms) }, 'job completed');
      attemptEnded(job, 'completed', ms);
      for (const next of chained) this.execute(next.job, next.handOver);
      // Only a job left unclaimed is news to the workers; a chained one is running already.
      if (unclaimed > 0) notifier.notify();
      for (const fn of afterCommit) {
        await fn().catch((error: unknown) =>
          context.log.error({ err: error }, 'work after a job’s commit failed'),
        );
      }
    } catch (error) {
      if (error instanceof LeaseLost || signal.aborted) {
        attemptEnded(job, 'released', performance.now() - started);
        if (this.stopping) await this.release(job, context);
        else context.log.warn('lease lost; another worker owns this job now');
        return;
      }
      const plan = await this.fail(job, def, error, context);
      attemptEnded(job, plan.nextAttemptAt === null ? 'failed' : 'retried', performance.now() - started);
      span.fail(error);
    }
  }

  /**
   * Commits a step's completion: the job completed (fenced on its lease), the step's writes, and
   * its successors, each claimed by this worker when it may run now. The first claimed successor
   * and its start status, or else the submission's end status (`endSubmission`), are written
   * with the completion in one statement (`Driver.completeJob`), so the fence runs after the
   * step's own writes: a lost lease throws and the unit rolls back whole.
   */
  private async commitCompletion(job: ClaimedJob, def: JobDefinition, completion: Completion) {
    const { jobs, batcher } = this.o.store;
    // The successors this commit claimed, each with what the step handed it: held only until
    // they start (so at most one per running job), and never seen by a later attempt.
    const chained: Array<{ job: ClaimedJob; handOver: unknown }> = [];
    const afterCommit: Array<() => Promise<void>> = [];
    let unclaimed = 0;
    await batcher.submit(
      async (trx) => {
        // Commit unit: the chained jobs and after-commit work are emptied first, so only the
        // committed attempt's count; the completion writes through `trx`, and the statuses it
        // asks for are written with the job's completion.
        chained.length = 0;
        afterCommit.length = 0;
        unclaimed = 0;
        const now = this.clock();
        let completed = false;
        let endStatus: string | undefined;
        await completion(trx, {
          enqueue: async (next, handOverToNext) => {
            const nextDef = this.o.kinds.get(next.type);
            const later = next.runAt !== undefined && Date.parse(next.runAt) > now.getTime();
            // While the door is busy the successor queues like any job, so the pacer sees it.
            if (this.stopping || !nextDef || later || this.doorBusy()) {
              await jobs.enqueue(trx, next, now);
              unclaimed++;
              return false;
            }
            const lease = { workerId: this.workerId, leaseMs: this.leaseMs };
            const claimed = completed
              ? await jobs.enqueueClaimed(trx, next, now, lease)
              : await jobs.completeAndChain(
                  trx,
                  job,
                  now,
                  { ...next, startStatus: nextDef.startStatus },
                  lease,
                );
            if (!claimed) throw new LeaseLost();
            if (completed) await jobs.setStatuses(trx, this.startStatuses([claimed]), now);
            completed = true;
            chained.push({ job: claimed, handOver: handOverToNext });
            return true;
          },
          afterCommit: (fn) => afterCommit.push(fn),
          endSubmission: (status) => {
            endStatus = status;
          },
        });
        if (!completed && !(await jobs.complete(trx, job, now, endStatus))) throw new LeaseLost();
        if (completed && endStatus !== undefined && job.submissionId !== null) {
          await jobs.setStatuses(trx, new Map([[endStatus, [job.submissionId]]]), now);
        }
      },
      { urgent: def.commitsUrgently === true },
    );
    return { chained, unclaimed, afterCommit };
  }

  private async release(job: ClaimedJob, context: WorkContext): Promise<void> {
    const { jobs, batcher } = this.o.store;
    try {
      // Commit unit: one update through `trx`, fenced on the lease.
      await batcher.submit((trx) => jobs.release(trx, job, this.clock()));
    } catch (error) {
      context.log.error({ err: error }, 'releasing a job at shutdown failed; its lease will expire');
    }
  }

  private async fail(
    job: ClaimedJob,
    def: JobDefinition | undefined,
    error: unknown,
    context: WorkContext,
  ): Promise<FailurePlan> {
    const { jobs, batcher, notifier } = this.o.store;
    const now = this.clock();
    const plan = planFailure(job, def, error, now, this.retry);
    try {
      // Commit unit: the plan was made before; its writes go through `trx`, fenced on the lease.
      await batcher.submit((trx) => recordFailure(trx, jobs, job, def, error, plan, now));
      logFailure(context.log, error, plan);
      if (plan.nextAttemptAt === null) def?.afterFailed?.(job, error);
      notifier.notify();
    } catch (writeError) {
      context.log.error(
        { err: writeError },
        'recording a job failure failed; the lease will expire and the job be rescued',
      );
    }
    return plan;
  }

  private async heartbeat(): Promise<void> {
    if (this.running.size === 0) return;
    try {
      const lost = await this.o.store.jobs.heartbeat(
        this.workerId,
        [...this.running.keys()],
        this.leaseMs,
        this.clock(),
      );
      for (const id of lost) this.running.get(id)?.abort.abort();
    } catch (error) {
      this.logger.error({ err: error }, 'heartbeat failed');
    }
  }
}

/**
 * The work context of one attempt: the ids its job row carries from the request that caused it,
 * and the job's own, on every line its step logs.
 */
export function jobContext(job: ClaimedJob, logger: Logger, clock: Clock): WorkContext {
  return workContext(
    logger,
    clock,
    {
      requestId: job.requestId ?? undefined,
      correlationId: job.correlationId ?? undefined,
      tenantId: job.tenantId,
      submissionId: job.submissionId ?? undefined,
    },
    { jobId: job.id, jobType: job.type, attempt: job.attempt },
  );
}
