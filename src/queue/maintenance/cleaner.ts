import type { Clock } from '../../clock.js';
import { systemClock } from '../../clock.js';
import type { SystemStore } from '../../store/index.js';
import { MAINTENANCE_LOCK_KEYS } from '../../store/locks.js';
import type { MaintenanceService, PassReport } from './service.js';

export interface CleanerOptions {
  store: Pick<SystemStore, 'maintenance' | 'batcher' | 'tryExclusive'>;
  clock?: Clock;
  /** Finished (completed or failed) jobs and their attempts are deleted this long after finishing. */
  jobRetentionMs?: number;
  /** Idempotency records are deleted this long after they expired (their key is free since then). */
  idempotencyRetentionMs?: number;
  intervalMs?: number;
  /** Rows deleted per transaction at most: a pass deletes in batches until none are left. */
  batchSize?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Documented in docs/pipeline.md and the settings `JOB_RETENTION` and `IDEMPOTENCY_RETENTION`. */
export const CLEANER_DEFAULTS = {
  jobRetentionMs: 7 * DAY_MS,
  idempotencyRetentionMs: DAY_MS,
  intervalMs: 10 * 60_000,
  batchSize: 1_000,
} as const;

/**
 * Deletes queue bookkeeping nobody needs any more (River's `JobCleaner`): finished jobs with
 * their attempts, and idempotency records long expired. Without it these tables grow with every
 * submission for ever. Submissions, results and reports are not touched. Each batch is its own
 * short transaction under the cleaner's lock, so one process at a time cleans and no lock is held
 * for long however much has piled up.
 */
export class Cleaner implements MaintenanceService {
  readonly name = 'cleaner';
  readonly intervalMs: number;
  private readonly clock: Clock;
  private readonly jobRetentionMs: number;
  private readonly idempotencyRetentionMs: number;
  private readonly batchSize: number;

  constructor(private readonly o: CleanerOptions) {
    this.intervalMs = o.intervalMs ?? CLEANER_DEFAULTS.intervalMs;
    this.clock = o.clock ?? systemClock;
    this.jobRetentionMs = o.jobRetentionMs ?? CLEANER_DEFAULTS.jobRetentionMs;
    this.idempotencyRetentionMs = o.idempotencyRetentionMs ?? CLEANER_DEFAULTS.idempotencyRetentionMs;
    this.batchSize = o.batchSize ?? CLEANER_DEFAULTS.batchSize;
  }

  async runOnce(): Promise<PassReport> {
    const now = this.clock().getTime();
    const jobsBefore = new Date(now - this.jobRetentionMs);
    const keysBefore = new Date(now - this.idempotencyRetentionMs);
    const report = { jobs: 0, jobAttempts: 0, idempotencyKeys: 0 };
    for (;;) {
      const batch = await this.batch(async (trx) => {
        const jobs = await this.o.store.maintenance.deleteFinishedJobs(trx, jobsBefore, this.batchSize);
        const keys = await this.o.store.maintenance.deleteExpiredIdempotencyKeys(
          trx,
          keysBefore,
          this.batchSize,
        );
        return { jobs: jobs.jobs, jobAttempts: jobs.attempts, idempotencyKeys: keys };
      });
      if (!batch) break;
      report.jobs += batch.jobs;
      report.jobAttempts += batch.jobAttempts;
      report.idempotencyKeys += batch.idempotencyKeys;
      if (batch.jobs < this.batchSize && batch.idempotencyKeys < this.batchSize) break;
    }
    return report;
  }

  /** One batch under the cleaner's lock; undefined when another process holds it. */
  private batch<T>(
    work: (trx: Parameters<CleanerOptions['store']['tryExclusive']>[0]) => Promise<T>,
  ): Promise<T | undefined> {
    const { batcher, tryExclusive } = this.o.store;
    return batcher.submit(async (trx) =>
      (await tryExclusive(trx, MAINTENANCE_LOCK_KEYS.cleaner)) ? work(trx) : undefined,
    );
  }
}
