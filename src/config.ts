import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DURATION_EXAMPLES, durationMs, durationSchema, durationText } from './domain/duration.js';
import { CLEANER_DEFAULTS, WORKER_DEFAULTS } from './queue/defaults.js';
import { PACING_DEFAULTS } from './queue/pacing.js';
import {
  ObjectStoreSettingError,
  type ObjectStoreSettings,
  objectStoreSettings,
} from './store/object-store/settings.js';

/**
 * Every setting is defined once here: its environment variable, default and meaning.
 * The README's configuration table is checked against this list by a test.
 */
const boolFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A browser origin: scheme, host and optional port, nothing else. */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** A comma-separated list of browser origins (CORS, the console's frame ancestors). */
const originList = z
  .string()
  .refine((v) => v.split(',').every((o) => ORIGIN.test(o.trim())), {
    message: 'must be a comma-separated list of origins such as https://app.example.com',
  })
  .optional();

export const SETTINGS = {
  PORT: { schema: z.coerce.number().int().min(0).max(65535), default: '8080', doc: 'listen port' },
  HOST: { schema: z.string().min(1), default: '0.0.0.0', doc: 'listen address' },
  DATA_DIR: {
    schema: z.string().min(1),
    default: './data',
    doc: 'embedded database (with report artifacts) and generated secrets',
  },
  DATABASE_URL: {
    schema: z.string().optional(),
    default: undefined,
    doc: 'unset = SQLite in `DATA_DIR`; `postgres://…` selects PostgreSQL',
  },
  DATABASE_POOL_SIZE: {
    schema: z.coerce.number().int().min(1).max(1000),
    default: '10',
    doc: 'PostgreSQL connections per process at most (plus one that listens for new jobs in a worker)',
  },
  ARTIFACT_STORE: {
    schema: z.string().optional(),
    default: undefined,
    doc: 'unset = report bytes in the database; `s3://bucket/prefix` = one object per report in an S3-compatible bucket, reached with the standard `AWS_*` variables (docs/object-storage.md)',
  },
  ARTIFACT_DOWNLOAD: {
    schema: z.enum(['service', 'redirect']),
    default: 'service',
    doc: '`service` = downloads stream through the service (checked, audited); `redirect` = a signed link answers `302` to a presigned object URL valid for 60 s (needs `ARTIFACT_STORE`; such a URL cannot be revoked before it expires)',
  },
  PUBLIC_BASE_URL: {
    schema: z.url().optional(),
    default: undefined,
    doc: 'base of signed download links (default `http://localhost:$PORT`)',
  },
  DOWNLOAD_URL_TTL_SECONDS: {
    schema: z.coerce.number().int().min(1),
    default: '900',
    doc: 'lifetime of a signed download link',
  },
  RATE_LIMIT_PER_MINUTE: {
    schema: z.coerce.number().int().min(0),
    default: '600',
    doc: 'requests per minute per API key (the actions of console sessions it opened included); `0` disables',
  },
  REDIS_URL: {
    schema: z
      .string()
      .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
      .optional(),
    default: undefined,
    doc: 'unset = rate limits counted per process; `redis://…` shares them across API processes',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    schema: z.string().refine((s) => s.split(',').every((p) => durationMs(p.trim()) !== undefined), {
      message: 'must be a comma-separated list of durations such as 0s,5s,5m',
    }),
    default: '0s,5s,5m,30m,2h,5h,10h,10h',
    doc: 'delay before each delivery attempt',
  },
  WEBHOOK_TIMEOUT_MS: { schema: z.coerce.number().int().min(1), default: '10000', doc: 'per attempt' },
  WEBHOOK_ALLOW_INSECURE: {
    schema: boolFromEnv,
    default: 'false',
    doc: '`true` allows `http://` and loopback/private callback targets (development and tests only)',
  },
  WEBHOOK_DISABLE_AFTER: {
    schema: durationSchema,
    default: '5d',
    doc: 'an endpoint whose every delivery attempt failed for this long (counted once failures span 12 hours) is disabled: its events are held, not dropped',
  },
  WEBHOOK_ATTEMPT_RETENTION: {
    schema: durationSchema,
    default: '30d',
    doc: "delivery attempts (with the first 1 KiB of each receiver's answer) are deleted this long after they were made; a recovery may reach back this far",
  },
  WEBHOOK_SECRETS_KEY: {
    schema: z.string().min(32).optional(),
    default: undefined,
    doc: 'master key sealing webhook signing secrets and receiver keys at rest; unset = generated once into `DATA_DIR/secrets`',
    secret: true,
  },
  ERASURE_LEDGER: {
    schema: z.string().min(1).optional(),
    default: undefined,
    doc: 'the erasure ledger, a file kept apart from the database and its backups (docs/backup.md); unset = `DATA_DIR/erasure-ledger.jsonl`. Several hosts on one PostgreSQL database: one shared file',
  },
  ERASURE_REPLAY_ON_START: {
    schema: boolFromEnv,
    default: 'false',
    doc: 'a database that misses erasures recorded in the ledger (restored from a backup) has them replayed at start, logged and audited; `false` refuses to start until `erasures replay` ran',
  },
  BACKUP_DIR: {
    schema: z.string().min(1).optional(),
    default: undefined,
    doc: 'SQLite only: scheduled backups are written here (docs/backup.md); unset = none',
  },
  BACKUP_INTERVAL: {
    schema: durationSchema,
    default: '24h',
    doc: 'time between scheduled backups (with `BACKUP_DIR`)',
  },
  BACKUP_KEEP: {
    schema: z.coerce.number().int().min(1).max(10000),
    default: '7',
    doc: 'scheduled backups kept in `BACKUP_DIR`; older ones are deleted',
  },
  LOG_LEVEL: {
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    doc: 'pino log level',
  },
  MIGRATE_ON_START: {
    schema: boolFromEnv,
    default: 'true',
    doc: 'apply pending database migrations when the server starts',
  },
  SLA_SECONDS: {
    schema: z.coerce.number().int().min(1),
    default: '300',
    doc: 'processing deadline after acceptance (`slaDeadlineAt`)',
  },
  JOB_MAX_ATTEMPTS: {
    schema: z.coerce.number().int().min(1).max(100),
    default: '5',
    doc: 'attempts before a pipeline job is marked failed',
  },
  WORKER_CONCURRENCY: {
    schema: z.coerce.number().int().min(0).max(1024),
    default: String(WORKER_DEFAULTS.concurrency),
    doc: 'pipeline jobs in flight at once in this process; `0` runs no worker',
  },
  RENDER_THREADS: {
    schema: z.union([
      z.literal('auto').transform(() => Math.max(1, os.availableParallelism() - 1)),
      z.coerce.number().int().min(0).max(64),
    ]),
    default: 'auto',
    doc: 'worker threads that render reports; `auto` = cores − 1 (at least 1), `0` renders on the main thread',
  },
  RENDER_NICE: {
    schema: z.coerce.number().int().min(0).max(19),
    // 5, not 19: as good for the door in the same bench, and a thread at 19 gets a sliver of a
    // core on a host busy with other processes (docs/performance-journal.md).
    default: '5',
    doc: 'nice value each render thread gives itself (Linux: per thread), so requests and the queue come first; `0` leaves them at the process’s',
  },
  WORKER_BUSY_CONCURRENCY: {
    schema: z.coerce.number().int().min(0).max(1024),
    default: String(PACING_DEFAULTS.busyConcurrency),
    doc: 'pipeline jobs in flight while partners’ requests are arriving, when API and worker share a process; full `WORKER_CONCURRENCY` once the API is quiet; `0` turns this pacing off',
  },
  JOB_LEASE_SECONDS: {
    schema: z.coerce.number().int().min(2).max(3600),
    default: String(WORKER_DEFAULTS.leaseMs / 1000),
    doc: 'a running job’s lease; a dead worker’s job runs again within this plus 5 s',
  },
  JOB_RETRY_BASE_MS: {
    schema: z.coerce.number().int().min(1),
    default: String(WORKER_DEFAULTS.retryBaseMs),
    doc: `first retry delay; doubles per attempt (with jitter), capped at ${WORKER_DEFAULTS.retryCapMs / 60_000} minutes`,
  },
  JOB_RETENTION: {
    schema: durationSchema,
    default: durationText(CLEANER_DEFAULTS.jobRetentionMs),
    doc: 'finished (completed or failed) jobs and their attempt records are deleted this long after finishing',
  },
  IDEMPOTENCY_RETENTION: {
    schema: durationSchema,
    default: durationText(CLEANER_DEFAULTS.idempotencyRetentionMs),
    doc: 'an idempotency record is deleted this long after it expired (its key is free from expiry on)',
  },
  RETENTION_DAYS: {
    schema: z.coerce.number().int().min(0).max(36_500),
    default: String(CLEANER_DEFAULTS.retentionDays),
    doc: 'submissions, results and reports older than this many days are erased; `0` keeps them until erased on request (an account may override it: `tenants set-retention`)',
  },
  AUDIT_RETENTION_DAYS: {
    schema: z.coerce.number().int().min(1).max(36_500),
    default: String(CLEANER_DEFAULTS.auditRetentionDays),
    doc: 'audit events are deleted this many days after they were recorded (six years by default)',
  },
  DOWNLOAD_SIGNING_SECRET: {
    schema: z.string().min(32).optional(),
    default: undefined,
    doc: 'secret for signed download links; unset = generated once into `DATA_DIR/secrets`',
    secret: true,
  },
  BODY_LIMIT_BYTES: {
    schema: z.coerce.number().int().min(1024),
    default: String(1024 * 1024),
    doc: 'largest accepted request body (413 above it)',
  },
  HEADERS_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(100).max(600_000),
    default: '10000',
    doc: 'a client must send its request headers within this (408 and the connection closed otherwise)',
  },
  REQUEST_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(100).max(3_600_000),
    default: '30000',
    doc: 'a client must send its whole request, body included, within this (at least `HEADERS_TIMEOUT_MS`)',
  },
  KEEP_ALIVE_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(100).max(3_600_000),
    default: '72000',
    doc: 'an idle keep-alive connection is closed after this (longer than a load balancer’s usual 60 s)',
  },
  RESPONSE_IDLE_TIMEOUT_MS: {
    schema: z.coerce.number().int().min(100).max(3_600_000),
    default: '30000',
    doc: 'a client that accepts no byte of an answer for this long (it stopped reading a download) has its connection closed',
  },
  AUTH_FAILURES_PER_MINUTE: {
    schema: z.coerce.number().int().min(0),
    default: '10',
    doc: 'failed API-key checks per client address per minute before its unknown keys get `429`; `0` disables',
  },
  CORS_ALLOWED_ORIGINS: {
    schema: originList,
    default: undefined,
    doc: 'browser origins allowed to call the API (CORS), comma-separated; unset = none, no CORS headers',
  },
  CONSOLE_ENABLED: {
    schema: boolFromEnv,
    default: 'true',
    doc: 'serve the partner console under `/console/` on the API port (docs/console.md)',
  },
  CONSOLE_FRAME_ANCESTORS: {
    schema: originList,
    default: undefined,
    doc: "partner sites allowed to show the console in a frame, comma-separated; unset = none (`frame-ancestors 'none'`)",
  },
  HSTS_MAX_AGE_SECONDS: {
    schema: z.coerce.number().int().min(0).max(63_072_000),
    default: '31536000',
    doc: 'when `PUBLIC_BASE_URL` is https, every answer carries `Strict-Transport-Security: max-age=<this>; includeSubDomains` (one year by default); `0` sends none (a proxy that adds its own); never sent for http',
  },
  METRICS_PORT: {
    schema: z.coerce.number().int().min(0).max(65535).optional(),
    default: undefined,
    doc: 'serves Prometheus metrics at `/metrics` on this port, in every role; unset = no metrics',
  },
  METRICS_HOST: {
    schema: z.string().min(1),
    default: '127.0.0.1',
    doc: 'address the metrics listener binds (it needs no key: keep it off the partners’ network)',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    schema: z.url().optional(),
    default: undefined,
    doc: 'set = OpenTelemetry traces sent over OTLP/HTTP to this collector (the other standard `OTEL_*` variables apply); unset = tracing not loaded',
  },
  TRUST_PROXY: {
    schema: boolFromEnv,
    default: 'false',
    doc: 'trust `X-Forwarded-*` headers from a load balancer',
  },
} as const;

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** `ARTIFACT_STORE` with the `AWS_*` variables; undefined = report bytes in the database. */
  objectStore: ObjectStoreSettings | undefined;
  /** `ARTIFACT_DOWNLOAD`: `redirect` answers a download with a presigned object URL. */
  artifactDownload: 'service' | 'redirect';
  publicBaseUrl: string;
  downloadUrlTtlSeconds: number;
  rateLimitPerMinute: number;
  redisUrl: string | undefined;
  webhookRetryScheduleMs: number[];
  webhookTimeoutMs: number;
  webhookAllowInsecure: boolean;
  webhookSecretsKey: string | undefined;
  /** `WEBHOOK_DISABLE_AFTER`: how long every attempt may fail before the endpoint is disabled. */
  webhookDisableAfterMs: number;
  /** `WEBHOOK_ATTEMPT_RETENTION`: delivery attempts (and their answer snippets) are kept this long. */
  webhookAttemptRetentionMs: number;
  /** `ERASURE_LEDGER`: unset = beside the embedded database (`defaultLedgerFile`). */
  erasureLedger: string | undefined;
  erasureReplayOnStart: boolean;
  backupDir: string | undefined;
  backupIntervalMs: number;
  backupKeep: number;
  logLevel: z.infer<Settings['LOG_LEVEL']['schema']>;
  migrateOnStart: boolean;
  slaSeconds: number;
  jobMaxAttempts: number;
  workerConcurrency: number;
  renderThreads: number;
  renderNice: number;
  workerBusyConcurrency: number;
  jobLeaseSeconds: number;
  jobRetryBaseMs: number;
  jobRetentionMs: number;
  idempotencyRetentionMs: number;
  retentionDays: number;
  auditRetentionDays: number;
  downloadSigningSecret: string | undefined;
  bodyLimitBytes: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** `RESPONSE_IDLE_TIMEOUT_MS`: an answer whose client takes no byte for this long is cut off. */
  responseIdleTimeoutMs: number;
  authFailuresPerMinute: number;
  corsAllowedOrigins: string[];
  consoleEnabled: boolean;
  consoleFrameAncestors: string[];
  /** `HSTS_MAX_AGE_SECONDS`: the `Strict-Transport-Security` max-age on an https base URL; 0 = none. */
  hstsMaxAgeSeconds: number;
  trustProxy: boolean;
  metricsPort: number | undefined;
  metricsHost: string;
  otlpEndpoint: string | undefined;
}

export class ConfigError extends Error {}

/** A setting's duration (`domain/duration.ts`) in milliseconds, or a `ConfigError`. */
export function parseDurationMs(text: string): number {
  const ms = durationMs(text.trim());
  if (ms === undefined) throw new ConfigError(`"${text}" is not a duration such as ${DURATION_EXAMPLES}`);
  return ms;
}

/** One setting's value as its schema reads it (from `env`, or its default when unset or empty). */
export function readSetting<K extends SettingName>(
  env: NodeJS.ProcessEnv,
  name: K,
): z.output<Settings[K]['schema']> {
  const setting = SETTINGS[name];
  const raw = env[name] === undefined || env[name] === '' ? setting.default : env[name];
  const parsed = setting.schema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(`${name}: ${parsed.error.issues[0]?.message ?? 'invalid value'}`);
  }
  return parsed.data as z.output<Settings[K]['schema']>;
}

/** The traces-only endpoint also turns tracing on, unless the SDK is switched off. */
function otlpTracesEndpoint(env: NodeJS.ProcessEnv): string | undefined {
  const value = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return value === undefined || value === '' ? undefined : value;
}

function optionalPath(value: string | undefined): string | undefined {
  return value === undefined ? undefined : path.resolve(value);
}

/** A comma-separated list of origins as a list (none when unset). */
function origins(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '');
}

function artifactDownload(env: NodeJS.ProcessEnv): Config['artifactDownload'] {
  const mode = readSetting(env, 'ARTIFACT_DOWNLOAD');
  if (mode === 'redirect' && readSetting(env, 'ARTIFACT_STORE') === undefined) {
    throw new ConfigError(
      'ARTIFACT_DOWNLOAD: redirect needs ARTIFACT_STORE (an object store to redirect to)',
    );
  }
  return mode;
}

function objectStore(env: NodeJS.ProcessEnv): ObjectStoreSettings | undefined {
  try {
    return objectStoreSettings(env);
  } catch (error) {
    if (error instanceof ObjectStoreSettingError) throw new ConfigError(error.message);
    throw error;
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = readSetting(env, 'PORT');
  const dataDir = path.resolve(readSetting(env, 'DATA_DIR'));
  const headersTimeoutMs = readSetting(env, 'HEADERS_TIMEOUT_MS');
  const requestTimeoutMs = readSetting(env, 'REQUEST_TIMEOUT_MS');
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError('REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS');
  }
  return {
    port,
    host: readSetting(env, 'HOST'),
    dataDir,
    databaseUrl: readSetting(env, 'DATABASE_URL'),
    databasePoolSize: readSetting(env, 'DATABASE_POOL_SIZE'),
    objectStore: objectStore(env),
    artifactDownload: artifactDownload(env),
    publicBaseUrl: (readSetting(env, 'PUBLIC_BASE_URL') ?? `http://localhost:${port}`).replace(/\/+$/, ''),
    downloadUrlTtlSeconds: readSetting(env, 'DOWNLOAD_URL_TTL_SECONDS'),
    rateLimitPerMinute: readSetting(env, 'RATE_LIMIT_PER_MINUTE'),
    redisUrl: readSetting(env, 'REDIS_URL'),
    webhookRetryScheduleMs: readSetting(env, 'WEBHOOK_RETRY_SCHEDULE').split(',').map(parseDurationMs),
    webhookTimeoutMs: readSetting(env, 'WEBHOOK_TIMEOUT_MS'),
    webhookAllowInsecure: readSetting(env, 'WEBHOOK_ALLOW_INSECURE'),
    webhookSecretsKey: readSetting(env, 'WEBHOOK_SECRETS_KEY'),
    webhookDisableAfterMs: parseDurationMs(readSetting(env, 'WEBHOOK_DISABLE_AFTER')),
    webhookAttemptRetentionMs: parseDurationMs(readSetting(env, 'WEBHOOK_ATTEMPT_RETENTION')),
    erasureLedger: optionalPath(readSetting(env, 'ERASURE_LEDGER')),
    erasureReplayOnStart: readSetting(env, 'ERASURE_REPLAY_ON_START'),
    backupDir: optionalPath(readSetting(env, 'BACKUP_DIR')),
    backupIntervalMs: parseDurationMs(readSetting(env, 'BACKUP_INTERVAL')),
    backupKeep: readSetting(env, 'BACKUP_KEEP'),
    logLevel: readSetting(env, 'LOG_LEVEL'),
    migrateOnStart: readSetting(env, 'MIGRATE_ON_START'),
    slaSeconds: readSetting(env, 'SLA_SECONDS'),
    jobMaxAttempts: readSetting(env, 'JOB_MAX_ATTEMPTS'),
    workerConcurrency: readSetting(env, 'WORKER_CONCURRENCY'),
    renderThreads: readSetting(env, 'RENDER_THREADS'),
    renderNice: readSetting(env, 'RENDER_NICE'),
    workerBusyConcurrency: readSetting(env, 'WORKER_BUSY_CONCURRENCY'),
    jobLeaseSeconds: readSetting(env, 'JOB_LEASE_SECONDS'),
    jobRetryBaseMs: readSetting(env, 'JOB_RETRY_BASE_MS'),
    jobRetentionMs: parseDurationMs(readSetting(env, 'JOB_RETENTION')),
    idempotencyRetentionMs: parseDurationMs(readSetting(env, 'IDEMPOTENCY_RETENTION')),
    retentionDays: readSetting(env, 'RETENTION_DAYS'),
    auditRetentionDays: readSetting(env, 'AUDIT_RETENTION_DAYS'),
    downloadSigningSecret: readSetting(env, 'DOWNLOAD_SIGNING_SECRET'),
    bodyLimitBytes: readSetting(env, 'BODY_LIMIT_BYTES'),
    headersTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: readSetting(env, 'KEEP_ALIVE_TIMEOUT_MS'),
    responseIdleTimeoutMs: readSetting(env, 'RESPONSE_IDLE_TIMEOUT_MS'),
    authFailuresPerMinute: readSetting(env, 'AUTH_FAILURES_PER_MINUTE'),
    corsAllowedOrigins: origins(readSetting(env, 'CORS_ALLOWED_ORIGINS')),
    consoleEnabled: readSetting(env, 'CONSOLE_ENABLED'),
    consoleFrameAncestors: origins(readSetting(env, 'CONSOLE_FRAME_ANCESTORS')),
    hstsMaxAgeSeconds: readSetting(env, 'HSTS_MAX_AGE_SECONDS'),
    trustProxy: readSetting(env, 'TRUST_PROXY'),
    metricsPort: readSetting(env, 'METRICS_PORT'),
    metricsHost: readSetting(env, 'METRICS_HOST'),
    otlpEndpoint:
      env.OTEL_SDK_DISABLED === 'true'
        ? undefined
        : (readSetting(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') ?? otlpTracesEndpoint(env)),
  };
}
