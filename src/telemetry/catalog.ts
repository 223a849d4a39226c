/**
 * Every series the service exports, by name: the one list the registry (`metrics.ts`), the
 * alert rules, the dashboard and `docs/operations.md` are checked against. Label values are
 * bounded: route templates, job types, outcome words and error codes, never ids, paths or
 * anything a partner sent.
 */
export const METRIC_CATALOG = {
  httpRequests: {
    name: 'healthspan_http_requests_total',
    type: 'counter',
    labels: ['method', 'route', 'status'],
    help: 'HTTP requests answered, by method, route template and status code.',
  },
  httpDuration: {
    name: 'healthspan_http_request_duration_seconds',
    type: 'histogram',
    labels: ['method', 'route'],
    help: 'Time from a request arriving to its answer being sent, by method and route template.',
  },
  submissions: {
    name: 'healthspan_submissions_total',
    type: 'counter',
    labels: ['mode', 'outcome', 'code'],
    help: 'Submissions at the door by key mode (live, test): accepted (202), replayed (same Idempotency-Key) or rejected (with the error code).',
  },
  jobs: {
    name: 'healthspan_jobs',
    type: 'gauge',
    labels: ['mode', 'type', 'state'],
    help: 'Jobs in the queue by mode (live, test), type and state (pending, running, retrying, held for a deactivated account, failed), read once per scrape.',
  },
  jobQueueAge: {
    name: 'healthspan_job_queue_age_seconds',
    type: 'gauge',
    labels: ['type'],
    help: 'How long the oldest due job of each type has waited to be claimed (0 when none waits).',
  },
  jobDuration: {
    name: 'healthspan_job_duration_seconds',
    type: 'histogram',
    labels: ['type', 'outcome'],
    help: 'Time one job attempt ran, by type and outcome (completed, retried, failed, released).',
  },
  jobRescues: {
    name: 'healthspan_job_rescues_total',
    type: 'counter',
    labels: [],
    help: 'Jobs whose lease ran out (their worker died or stalled) and were handed back to the queue.',
  },
  slaBreaches: {
    name: 'healthspan_sla_breaches_total',
    type: 'counter',
    labels: [],
    help: 'Submissions that finished (completed or failed) after their SLA deadline.',
  },
  pipelineLatency: {
    name: 'healthspan_pipeline_latency_seconds',
    type: 'histogram',
    labels: [],
    help: 'Time from a submission being received to its result being completed.',
  },
  webhookAttempts: {
    name: 'healthspan_webhook_attempts_total',
    type: 'counter',
    labels: ['mode', 'outcome'],
    help: 'Callback attempts by mode (live, test) and outcome: delivered, or why not (http_status, timeout, dns, connection_refused, ...).',
  },
  webhookAttemptDuration: {
    name: 'healthspan_webhook_attempt_duration_seconds',
    type: 'histogram',
    labels: [],
    help: 'Time one callback attempt took, from connecting to the receiver’s answer or the timeout.',
  },
  webhookDeliveryLatency: {
    name: 'healthspan_webhook_delivery_latency_seconds',
    type: 'histogram',
    labels: [],
    help: 'Time from an event being created to the receiver acknowledging it with a 2xx, retries included.',
  },
  webhookEndpoints: {
    name: 'healthspan_webhook_endpoints',
    type: 'gauge',
    labels: ['mode', 'status'],
    help: 'Callback endpoints by mode (live, test) and status (enabled, disabled: every attempt failed for WEBHOOK_DISABLE_AFTER), read once per scrape.',
  },
  dbCommitDuration: {
    name: 'healthspan_db_commit_duration_seconds',
    type: 'histogram',
    labels: [],
    help: 'Time one group-commit transaction took, statements and the durable commit included.',
  },
  dbCommitBatchSize: {
    name: 'healthspan_db_commit_batch_size',
    type: 'histogram',
    labels: [],
    help: 'Units of work (ingests, claims, completions) sharing one group-commit transaction.',
  },
  renderDuration: {
    name: 'healthspan_render_duration_seconds',
    type: 'histogram',
    labels: ['type'],
    help: 'Time to render one report, by type (json, html, pdf).',
  },
  ledgerEntries: {
    name: 'healthspan_erasure_ledger_entries',
    type: 'gauge',
    labels: [],
    help: 'Erasure ledger entries the database has applied (its position in the ledger, docs/backup.md), read once per scrape.',
  },
  ledgerAppends: {
    name: 'healthspan_erasure_ledger_appends_total',
    type: 'counter',
    labels: ['kind'],
    help: 'Entries this process appended to the erasure ledger, by kind (requested, completed, override).',
  },
  ledgerRefusals: {
    name: 'healthspan_erasure_ledger_refusals_total',
    type: 'counter',
    labels: ['reason'],
    help: "Erasure requests refused (503) because the erasure ledger could not take their entry, by the file system's reason (ENOSPC, EROFS, ENOENT, EISDIR, EACCES, or the check that failed): nothing of them was recorded.",
  },
  erasuresReplayed: {
    name: 'healthspan_erasures_replayed_total',
    type: 'counter',
    labels: [],
    help: 'Erasures this process requested again from the erasure ledger (ERASURE_REPLAY_ON_START after a restore).',
  },
  backups: {
    name: 'healthspan_backups_total',
    type: 'counter',
    labels: ['outcome'],
    help: 'Scheduled backups (BACKUP_DIR) this process wrote, by outcome (ok: written and checked; failed).',
  },
  backupLeftovers: {
    name: 'healthspan_backup_leftovers_removed_total',
    type: 'counter',
    labels: [],
    help: 'Files that killed backups left in BACKUP_DIR (temporary copies, manifests without their copy), removed by a scheduled pass.',
  },
  backupLastSuccess: {
    name: 'healthspan_backup_last_success_timestamp_seconds',
    type: 'gauge',
    labels: [],
    help: 'When the newest checked backup in BACKUP_DIR was taken (Unix seconds; while it holds none, when this process started), read once per scrape; 0 without BACKUP_DIR.',
  },
  objectStoreOperations: {
    name: 'healthspan_object_store_operations_total',
    type: 'counter',
    labels: ['operation', 'outcome'],
    help: 'Report objects in the object store (ARTIFACT_STORE, or the files of EMBEDDED_ARTIFACTS=files): writes, reads, deletes and presigned redirects (ok, missing or error), and reports rendered again for a download because their stored bytes were missing or altered (either store).',
  },
  ready: {
    name: 'healthspan_ready',
    type: 'gauge',
    labels: [],
    help: '1 when this process is ready (what /ready answers with 200), else 0; read once per scrape.',
  },
  buildInfo: {
    name: 'healthspan_build_info',
    type: 'gauge',
    labels: ['version', 'role', 'store'],
    help: 'Always 1: the version, process role and store of this process.',
  },
} as const;

export type MetricKey = keyof typeof METRIC_CATALOG;

/** The job states the `healthspan_jobs` gauge reports; completed jobs only wait to be cleaned. */
export const GAUGED_JOB_STATES = ['pending', 'running', 'retrying', 'held', 'failed'] as const;

/** The statuses the `healthspan_webhook_endpoints` gauge reports, 0 when none. */
export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
