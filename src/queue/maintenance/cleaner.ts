import type { Clock } from '../../clock.js';
import { isUuid } from '../../domain/ids.js';
import { ObjectStoreUnavailableError } from '../../store/artifact-store.js';
import { removeLeftArtifactFiles } from '../../store/embedded/file-artifact-store.js';
import type { SystemStore } from '../../store/index.js';
import { MAINTENANCE_LOCK_KEYS } from '../../store/locks.js';
import { CLEANER_DEFAULTS } from '../defaults.js';
import type { MaintenanceService, PassReport } from './service.js';

export interface CleanerOptions {
  store: Pick<
    SystemStore,
    'maintenance' | 'batcher' | 'tryExclusive' | 'erasures' | 'audit' | 'flushDeletes' | 'artifacts' | 'db'
  >;
  clock: Clock;
  /** Finished (completed or failed) jobs and their attempts are deleted this long after finishing. */
  jobRetentionMs?: number;
  /** Idempotency records are deleted this long after they expired (their key is free since then). */
  idempotencyRetentionMs?: number;
  intervalMs?: number;
  /** Rows deleted per transaction at most: a pass deletes in batches until none are left. */
  batchSize?: number;
  /** RETENTION_DAYS: submissions older than this are erased; 0 keeps them (accounts may override). */
  retentionDays?: number;
  /** AUDIT_RETENTION_DAYS: audit events older than this are deleted. */
  auditRetentionDays?: number;
  /** WEBHOOK_ATTEMPT_RETENTION: delivery attempts (and the answers they keep) older than this are deleted. */
  webhookAttemptRetentionMs?: number;
  /**
   * How long one retention transaction may erase for: it stops taking submissions once this has
   * passed, so the write lock it holds (SQLite's one writer) is never held much longer.
   */
  erasureBudgetMs?: number;
  /**
   * DATA_DIR of an embedded store whose report bytes are not in files (today): report files an
   * earlier `EMBEDDED_ARTIFACTS=files` left there are removed (`removeLeftArtifactFiles`).
   */
  leftArtifactFilesIn?: string;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * An object younger than this is never taken for an orphan: the render step writes its objects
 * moments before the commit that marks them available, and a sweep must not see that gap.
 */
export const ORPHAN_GRACE_MS = 60 * 60_000;
/** Objects one pass looks at, at most: a bucket of millions is swept over many passes. */
const SWEEP_PER_PASS = 5_000;
const SWEEP_PAGE = 1_000;

/** Submissions considered per retention transaction at most (the time budget usually stops it first). */
const RETENTION_BATCH = 200;

/**
 * Deletes what nobody may keep any longer (River's `JobCleaner`): finished jobs with their
 * attempts and idempotency records long expired (queue bookkeeping, which otherwise grows with
 * every submission for ever), audit events past AUDIT_RETENTION_DAYS, webhook delivery attempts
 * (with the receiver's answers they keep) past WEBHOOK_ATTEMPT_RETENTION, and, when a retention
 * period is set, submissions past it with everything derived from them (erased exactly as an
 * erasure request does, `ErasureRepository.eraseSubmission`, each audited as
 * `submission.expired`). Each batch is its own short transaction under the cleaner's lock, so one
 * process at a time cleans and no lock is held for long however much has piled up.
 */
export class Cleaner implements MaintenanceService {
  readonly name = 'cleaner';
  readonly intervalMs: number;
  private readonly clock: Clock;
  private readonly jobRetentionMs: number;
  private readonly idempotencyRetentionMs: number;
  private readonly batchSize: number;
  private readonly retentionDays: number;
  private readonly auditRetentionDays: number;
  private readonly webhookAttemptRetentionMs: number;
  private readonly erasureBudgetMs: number;
  /** Where the next sweep of the object store goes on from (its start when undefined). */
  private sweepFrom: string | undefined;

  constructor(private readonly o: CleanerOptions) {
    this.intervalMs = o.intervalMs ?? CLEANER_DEFAULTS.intervalMs;
    this.clock = o.clock;
    this.jobRetentionMs = o.jobRetentionMs ?? CLEANER_DEFAULTS.jobRetentionMs;
    this.idempotencyRetentionMs = o.idempotencyRetentionMs ?? CLEANER_DEFAULTS.idempotencyRetentionMs;
    this.batchSize = o.batchSize ?? CLEANER_DEFAULTS.batchSize;
    this.retentionDays = o.retentionDays ?? CLEANER_DEFAULTS.retentionDays;
    this.auditRetentionDays = o.auditRetentionDays ?? CLEANER_DEFAULTS.auditRetentionDays;
    this.webhookAttemptRetentionMs =
      o.webhookAttemptRetentionMs ?? CLEANER_DEFAULTS.webhookAttemptRetentionMs;
    this.erasureBudgetMs = o.erasureBudgetMs ?? CLEANER_DEFAULTS.erasureBudgetMs;
  }

  async runOnce(): Promise<PassReport> {
    const now = this.clock().getTime();
    const jobsBefore = new Date(now - this.jobRetentionMs);
    const keysBefore = new Date(now - this.idempotencyRetentionMs);
    const auditBefore = new Date(now - this.auditRetentionDays * DAY_MS);
    const attemptsBefore = new Date(now - this.webhookAttemptRetentionMs);
    const report = {
      jobs: 0,
      jobAttempts: 0,
      idempotencyKeys: 0,
      auditEvents: 0,
      webhookAttempts: 0,
      expiredSubmissions: 0,
      orphanObjects: 0,
      leftReportFiles: 0,
    };
    report.expiredSubmissions = await this.expireSubmissions(new Date(now));
    report.orphanObjects = await this.sweepOrphans(new Date(now - ORPHAN_GRACE_MS));
    for (;;) {
      const batch = await this.batch(async (trx) => {
        const jobs = await this.o.store.maintenance.deleteFinishedJobs(trx, jobsBefore, this.batchSize);
        const keys = await this.o.store.maintenance.deleteExpiredIdempotencyKeys(
          trx,
          keysBefore,
          this.batchSize,
        );
        const audit = await this.o.store.audit.deleteBefore(trx, auditBefore, this.batchSize);
        const webhookAttempts = await this.o.store.maintenance.deleteWebhookAttempts(
          trx,
          attemptsBefore,
          this.batchSize,
        );
        return {
          jobs: jobs.jobs,
          jobAttempts: jobs.attempts,
          idempotencyKeys: keys,
          auditEvents: audit,
          webhookAttempts,
        };
      });
      if (!batch) break;
      report.jobs += batch.jobs;
      report.jobAttempts += batch.jobAttempts;
      report.idempotencyKeys += batch.idempotencyKeys;
      report.auditEvents += batch.auditEvents;
      report.webhookAttempts += batch.webhookAttempts;
      if (
        batch.jobs < this.batchSize &&
        batch.idempotencyKeys < this.batchSize &&
        batch.auditEvents < this.batchSize &&
        batch.webhookAttempts < this.batchSize
      )
        break;
    }
    // Last: a folder that cannot be removed fails this pass (logged) after the rest was done.
    const dataDir = this.o.leftArtifactFilesIn;
    if (dataDir !== undefined) report.leftReportFiles = await removeLeftArtifactFiles(dataDir);
    return report;
  }

  /**
   * Erases submissions past their retention period, a few per transaction: each transaction
   * stops taking more once `erasureBudgetMs` has passed. Then, as after an erasure request, the
   * deleted rows are made unreadable in the database's files.
   */
  private async expireSubmissions(now: Date): Promise<number> {
    const { maintenance, erasures, audit, artifacts } = this.o.store;
    let total = 0;
    for (;;) {
      const batch = await this.batch(async (trx) => {
        const started = performance.now();
        const expired = await maintenance.expiredSubmissions(trx, now, this.retentionDays, RETENTION_BATCH);
        let erased = 0;
        const artifactIds: string[] = [];
        for (const submission of expired) {
          if (!artifacts.inDatabase) artifactIds.push(...(await erasures.artifactIdsOf(trx, submission.id)));
          await erasures.eraseSubmission(trx, submission.id, null);
          await audit.record(
            trx,
            submission.tenantId,
            { action: 'submission.expired', resourceType: 'submission', resourceId: submission.id },
            { actor: { type: 'system' }, requestId: `retention:${now.toISOString()}` },
            now,
          );
          erased++;
          if (performance.now() - started >= this.erasureBudgetMs) break;
        }
        return {
          erased,
          artifactIds,
          more: erased < expired.length || expired.length === RETENTION_BATCH,
        };
      });
      if (!batch) break;
      // After the commit: a failure leaves objects no row points to, which the sweep deletes.
      await artifacts.delete(batch.artifactIds).catch(() => undefined);
      total += batch.erased;
      if (!batch.more || batch.erased === 0) break;
    }
    if (total > 0) await this.o.store.flushDeletes();
    return total;
  }

  /**
   * Deletes objects that no available artifact names: written by a render whose commit never
   * came (a crash between the two), or left by an erasure whose deletes failed after its commit.
   * Only objects written before `before`; a store that does not answer is swept next pass.
   */
  private async sweepOrphans(before: Date): Promise<number> {
    const { artifacts, maintenance, db } = this.o.store;
    if (artifacts.inDatabase) return 0;
    let deleted = 0;
    try {
      for (let seen = 0; seen < SWEEP_PER_PASS; seen += SWEEP_PAGE) {
        const page = await artifacts.stored(before, this.sweepFrom, SWEEP_PAGE);
        this.sweepFrom = page.next;
        const named = page.artifactIds.filter(isUuid);
        const alive = await maintenance.availableArtifacts(db, named);
        const orphans = page.artifactIds.filter((id) => !alive.has(id));
        await artifacts.delete(orphans);
        deleted += orphans.length;
        if (page.next === undefined) break;
      }
    } catch (error) {
      if (!(error instanceof ObjectStoreUnavailableError)) throw error;
    }
    return deleted;
  }

  /** One batch under the cleaner's lock; undefined when another process holds it. */
  private batch<T>(
    work: (trx: Parameters<CleanerOptions['store']['tryExclusive']>[0]) => Promise<T>,
  ): Promise<T | undefined> {
    const { batcher, tryExclusive } = this.o.store;
    // Commit unit: every batch picks its rows in `trx` and returns its counts; the lock is the
    // transaction's, taken again by a second attempt.
    return batcher.submit(async (trx) =>
      (await tryExclusive(trx, MAINTENANCE_LOCK_KEYS.cleaner)) ? work(trx) : undefined,
    );
  }
}
