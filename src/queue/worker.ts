import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { JobType } from '../domain/statuses.js';
import type { Committer } from '../store/commit-batcher.js';
import type { JobsRepository } from '../store/repositories/jobs.js';
import { retryDelayMs } from './backoff.js';
import type { JobNotifier } from './notifier.js';
import { type ClaimedJob, ExpectedJobError, type JobDefinition, PermanentJobError } from './types.js';

export interface WorkerOptions {
  jobs: JobsRepository;
  batcher: Committer;
  notifier: JobNotifier;
  logger: Logger;
  definitions: Partial<Record<JobType, JobDefinition>>;
  /** Jobs in flight at once in this process. */
  concurrency: number;
  /** Lease length; a dead worker's job is rescued after at most this plus `rescueEveryMs`. */
  leaseMs: number;
  heartbeatMs: number;
  /** Safety-net poll; in-process enqueues wake the worker at once. */
  pollMs: number;
  rescueEveryMs: number;
  retryBaseMs: number;
  retryCapMs: number;
  clock?: () => Date;
  workerId?: string;
}

class LeaseLost extends Error {}

const STOPPED_SUMMARY = 'The worker processing this step stopped before finishing; it will be retried.';
const DEFAULT_SUMMARY = 'This step failed because of an internal error.';

/**
 * Claims jobs with a lease, runs them with bounded concurrency, extends leases with a heartbeat,
 * retries failures with exponential backoff and jitter, and rescues jobs whose lease expired.
 */
export class Worker {
  readonly workerId: string;
  private readonly running = new Map<
    string,
    { job: ClaimedJob; abort: AbortController; done: Promise<void> }
  >();
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe: (() => void) | undefined;
  private claiming = false;
  private claimAgain = false;
  private stopping = false;
  private readonly clock: () => Date;
  private readonly types: JobType[];
  private readonly stopHooks: Array<() => Promise<void> | undefined> = [];
  private started = false;
  /** The last queue read that failed, cleared by the next one that succeeds. */
  private queueError: string | undefined;

  constructor(private readonly o: WorkerOptions) {
    this.workerId = o.workerId ?? `worker-${process.pid}-${randomUUID().slice(0, 8)}`;
    this.clock = o.clock ?? (() => new Date());
    this.types = Object.keys(o.definitions) as JobType[];
  }

  start(): void {
    this.started = true;
    this.unsubscribe = this.o.notifier.subscribe(() => this.kick());
    this.timers.push(setInterval(() => this.kick(), this.o.pollMs));
    this.timers.push(setInterval(() => void this.heartbeat(), this.o.heartbeatMs));
    this.timers.push(setInterval(() => void this.rescue(), this.o.rescueEveryMs));
    for (const t of this.timers) t.unref();
    this.kick();
    void this.rescue();
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
    const all = Promise.all([...this.running.values()].map((r) => r.done));
    const timedOut = await Promise.race([
      all.then(() => false),
      new Promise<boolean>((r) => setTimeout(() => r(true), graceMs).unref()),
    ]);
    if (timedOut) {
      const left = [...this.running.values()];
      for (const r of left) r.abort.abort();
      await Promise.allSettled(left.map((r) => r.done));
    }
    await Promise.allSettled(this.stopHooks.map((hook) => hook()));
  }

  private kick(): void {
    if (this.stopping) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = true;
    void this.claimLoop().finally(() => {
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
        const free = this.o.concurrency - this.running.size;
        if (free <= 0) return;
        const claimed = await this.claimAndStart(free);
        this.queueError = undefined;
        for (const job of claimed) this.execute(job);
        if (claimed.length < free) return;
      }
    } catch (error) {
      this.queueError = error instanceof Error ? error.constructor.name : 'error';
      this.o.logger.error({ err: error }, 'claiming jobs failed; will retry on the next poll');
    }
  }

  /**
   * Claims jobs and records that they started in one transaction (one commit for the whole
   * claim). A start hook that throws leaves its job claimed; the attempt then fails normally.
   */
  private async claimAndStart(limit: number): Promise<ClaimedJob[]> {
    return this.o.batcher.submit(async (trx) => {
      const claimed = await this.o.jobs.claim(
        trx,
        this.workerId,
        this.types,
        limit,
        this.o.leaseMs,
        this.clock(),
      );
      for (const job of claimed) await this.o.definitions[job.type]?.onStart?.(trx, job);
      return claimed;
    });
  }

  private execute(job: ClaimedJob): void {
    const abort = new AbortController();
    const entry = { job, abort, done: Promise.resolve() };
    this.running.set(job.id, entry);
    entry.done = this.runOne(job, abort.signal).finally(() => {
      this.running.delete(job.id);
      this.kick();
    });
  }

  private async runOne(job: ClaimedJob, signal: AbortSignal): Promise<void> {
    const def = this.o.definitions[job.type];
    const log = this.jobLog(job);
    const started = performance.now();
    try {
      if (!def) throw new PermanentJobError('No worker can run this kind of step.');
      const completion = await def.run(job, { signal });
      if (signal.aborted) throw new LeaseLost();
      const chained: ClaimedJob[] = [];
      await this.o.batcher.submit(
        async (trx) => {
          // This unit may run twice (see CommitBatcher): only the last run's chain counts.
          chained.length = 0;
          const now = this.clock();
          if (!(await this.o.jobs.complete(trx, job, now))) throw new LeaseLost();
          await completion(trx, {
            enqueue: async (next) => {
              const nextDef = this.o.definitions[next.type];
              const later = next.runAt !== undefined && Date.parse(next.runAt) > now.getTime();
              if (this.stopping || !nextDef || later) {
                await this.o.jobs.enqueue(trx, next, now);
                return false;
              }
              const claimed = await this.o.jobs.enqueueClaimed(trx, next, now, {
                workerId: this.workerId,
                leaseMs: this.o.leaseMs,
              });
              await nextDef.onStart?.(trx, claimed);
              chained.push(claimed);
              return true;
            },
          });
        },
        { urgent: def.commitsUrgently === true },
      );
      log.info({ ms: Math.round(performance.now() - started) }, 'job completed');
      for (const next of chained) this.execute(next);
      this.o.notifier.notify();
    } catch (error) {
      if (error instanceof LeaseLost || signal.aborted) {
        if (this.stopping) await this.release(job);
        else log.warn('lease lost; another worker owns this job now');
        return;
      }
      await this.recordFailure(job, def, error);
    }
  }

  /** What every line about a job carries, so an operator can follow one submission's jobs. */
  private jobLog(job: ClaimedJob): Logger {
    return this.o.logger.child({
      jobId: job.id,
      jobType: job.type,
      attempt: job.attempt,
      submissionId: job.submissionId,
      tenantId: job.tenantId,
      correlationId: job.correlationId,
    });
  }

  private async release(job: ClaimedJob): Promise<void> {
    try {
      await this.o.batcher.submit((trx) => this.o.jobs.release(trx, job, this.clock()));
    } catch (error) {
      this.o.logger.error(
        { err: error, jobId: job.id },
        'releasing a job at shutdown failed; its lease will expire',
      );
    }
  }

  private async recordFailure(
    job: ClaimedJob,
    def: JobDefinition | undefined,
    error: unknown,
  ): Promise<void> {
    const permanent = error instanceof PermanentJobError;
    const summary = permanent
      ? error.summary
      : error instanceof WorkerStoppedError
        ? STOPPED_SUMMARY
        : (def?.summarize?.(error) ?? DEFAULT_SUMMARY);
    const final = permanent || job.attempt >= job.maxAttempts;
    const now = this.clock();
    const log = this.jobLog(job);
    // An attempt its worker never finished (it died or stopped) did not fail: it runs again at
    // once, and keeps its place in line (due since it was accepted) rather than waiting for the
    // step's retry schedule behind everything queued meanwhile.
    const interrupted = error instanceof WorkerStoppedError;
    const nextAttemptAt = final
      ? null
      : interrupted
        ? new Date(Math.min(Date.parse(job.acceptedAt), now.getTime()))
        : new Date(
            now.getTime() +
              (def?.retryDelayMs?.(job.attempt) ??
                retryDelayMs(job.attempt, this.o.retryBaseMs, this.o.retryCapMs)),
          );
    try {
      await this.o.batcher.submit(async (trx) => {
        if (nextAttemptAt === null) {
          if (await this.o.jobs.fail(trx, job, summary, now)) await def?.onFailed?.(trx, job, summary, error);
        } else {
          await this.o.jobs.retryLater(trx, job, nextAttemptAt, summary, now);
        }
      });
      const cause = describeFailure(error);
      if (nextAttemptAt === null) log.warn({ ...cause, summary }, 'job failed for good');
      else
        log.warn({ ...cause, summary, nextAttemptAt: nextAttemptAt.toISOString() }, 'job failed; will retry');
      this.o.notifier.notify();
    } catch (writeError) {
      log.error(
        { err: writeError },
        'recording a job failure failed; the lease will expire and the job be rescued',
      );
    }
  }

  private async heartbeat(): Promise<void> {
    if (this.running.size === 0) return;
    try {
      const lost = await this.o.jobs.heartbeat(
        this.workerId,
        [...this.running.keys()],
        this.o.leaseMs,
        this.clock(),
      );
      for (const id of lost) this.running.get(id)?.abort.abort();
    } catch (error) {
      this.o.logger.error({ err: error }, 'heartbeat failed');
    }
  }

  /** Jobs whose lease expired (their worker died): count the attempt as failed and move on. */
  private async rescue(): Promise<void> {
    if (this.stopping) return;
    try {
      const expired = await this.o.jobs.expired(this.clock(), 100);
      // Submitted together, the rescues share one group commit instead of one commit each.
      await Promise.all(
        expired.map((job) => {
          this.jobLog(job).warn({ owner: job.lockedBy }, 'rescuing a job whose lease expired');
          return this.recordFailure(job, this.o.definitions[job.type], new WorkerStoppedError());
        }),
      );
    } catch (error) {
      this.o.logger.error({ err: error }, 'rescuing expired jobs failed');
    }
  }
}

/** A worker stopped mid-step: retryable, with its own summary. */
class WorkerStoppedError extends Error {
  constructor() {
    super(STOPPED_SUMMARY);
  }
}

/** Expected failures are named by class; anything else keeps its stack for whoever debugs it. */
function describeFailure(error: unknown): Record<string, unknown> {
  if (error instanceof ExpectedJobError) return { errorClass: error.errorClass };
  if (error instanceof PermanentJobError || error instanceof WorkerStoppedError) {
    return { errorClass: error.constructor.name };
  }
  return { err: error };
}
