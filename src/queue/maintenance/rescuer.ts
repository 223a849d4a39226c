import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { runInContext } from '../../context.js';
import { RESCUER_DEFAULTS } from '../../fixed-defaults.js';
import type { ClaimedJob } from '../../jobs/types.js';
import type { SystemStore } from '../../store/index.js';
import { MAINTENANCE_LOCK_KEYS } from '../../store/locks.js';
import { emit } from '../../telemetry/events.js';
import { WORKER_DEFAULTS } from '../defaults.js';
import { logFailure, planFailure, type RetryPolicy, recordFailure, WorkerStoppedError } from '../failure.js';
import type { JobKinds } from '../kinds.js';
import type { JobDefinition } from '../types.js';
import { jobContext } from '../worker.js';
import type { MaintenanceService, PassReport } from './service.js';

export interface RescuerOptions {
  store: Pick<SystemStore, 'jobs' | 'batcher' | 'notifier' | 'tryExclusive'>;
  /** The kinds whose steps decide a rescued job's retry and final-failure writes. */
  kinds: JobKinds;
  logger: Logger;
  clock: Clock;
  /** How often expired leases are looked for. */
  intervalMs?: number;
  /** Jobs rescued per pass at most (the rest in the next pass). */
  batchSize?: number;
  retry?: Partial<RetryPolicy>;
  /** Rescue only jobs of `kinds` (a process that runs some kinds alone: the erasure replay). */
  onlyItsKinds?: boolean;
}

/**
 * Finds running jobs whose lease ran out (their worker died or stalled) and settles each
 * attempt as interrupted: retried at once in its original place in line, or failed for good
 * when it was its last attempt (with its step's final-failure writes). A pass is one
 * transaction, one commit, under the rescuer's lock; a pass that fails is rolled back whole and
 * the next one tries again.
 */
export class Rescuer implements MaintenanceService {
  readonly name = 'rescuer';
  readonly intervalMs: number;
  private readonly batchSize: number;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly retry: RetryPolicy;

  constructor(private readonly o: RescuerOptions) {
    this.intervalMs = o.intervalMs ?? RESCUER_DEFAULTS.intervalMs;
    this.batchSize = o.batchSize ?? RESCUER_DEFAULTS.batchSize;
    this.clock = o.clock;
    this.logger = o.logger;
    this.retry = {
      retryBaseMs: o.retry?.retryBaseMs ?? WORKER_DEFAULTS.retryBaseMs,
      retryCapMs: o.retry?.retryCapMs ?? WORKER_DEFAULTS.retryCapMs,
    };
  }

  async runOnce(): Promise<PassReport> {
    const { jobs, batcher, notifier, tryExclusive } = this.o.store;
    const now = this.clock();
    // Commit unit: the expired jobs are read in `trx` and what was done with them is its return
    // value; the lock is the transaction's, taken again by a second attempt.
    const settled = await batcher.submit(async (trx) => {
      if (!(await tryExclusive(trx, MAINTENANCE_LOCK_KEYS.rescuer))) return [];
      const types = this.o.onlyItsKinds ? this.o.kinds.names() : undefined;
      const expired = await jobs.expired(trx, now, this.batchSize, types);
      const out: Array<{
        job: ClaimedJob;
        plan: ReturnType<typeof planFailure>;
        def: JobDefinition | undefined;
      }> = [];
      for (const job of expired) {
        const def = this.o.kinds.get(job.type);
        const error = new WorkerStoppedError();
        const plan = planFailure(job, def, error, now, this.retry);
        await recordFailure(trx, jobs, job, def, error, plan, now);
        out.push({ job, plan, def });
      }
      return out;
    });
    for (const { job, plan, def } of settled) {
      // In the job's context: these lines (and any its final-failure hook writes) carry its ids.
      runInContext(jobContext(job, this.logger, this.clock), () => {
        this.logger.warn({ owner: job.lockedBy }, 'rescued a job whose lease expired');
        logFailure(this.logger, new WorkerStoppedError(), plan);
        if (plan.nextAttemptAt === null) def?.afterFailed?.(job, new WorkerStoppedError());
      });
    }
    if (settled.length > 0) emit('job.rescued', { count: settled.length });
    if (settled.length > 0) notifier.notify();
    return { rescued: settled.length };
  }
}
