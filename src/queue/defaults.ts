/**
 * The queue's defaults, in one table: the worker's and the cleaner's options fall back to them,
 * and the service settings that set the same things (`config.ts`: WORKER_CONCURRENCY,
 * JOB_LEASE_SECONDS, JOB_RETRY_BASE_MS, JOB_RETENTION, IDEMPOTENCY_RETENTION, RETENTION_DAYS,
 * AUDIT_RETENTION_DAYS) take their defaults from here. No imports, so the settings can read it.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

export const WORKER_DEFAULTS = {
  concurrency: 128,
  leaseMs: 15_000,
  pollMs: 1_000,
  retryBaseMs: 1_000,
  retryCapMs: 5 * 60_000,
} as const;

/** Documented in docs/pipeline.md. */
export const CLEANER_DEFAULTS = {
  jobRetentionMs: 7 * DAY_MS,
  idempotencyRetentionMs: DAY_MS,
  intervalMs: 10 * 60_000,
  batchSize: 1_000,
  retentionDays: 0,
  auditRetentionDays: 2190,
  webhookAttemptRetentionMs: 30 * DAY_MS,
  erasureBudgetMs: 25,
} as const;
