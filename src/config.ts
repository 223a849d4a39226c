import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { DURATION_EXAMPLES, durationMs, durationSchema, durationText } from './domain/duration.js';
import { CLEANER_DEFAULTS, WORKER_DEFAULTS } from './queue/defaults.js';
import {
  ObjectStoreSettingError,
  type ObjectStoreSettings,
  objectStoreSettings,
} from './store/object-store/settings.js';

export class ConfigError extends Error {}

/** A setting's duration (`domain/duration.ts`) in milliseconds, or a `ConfigError`. */
export function parseDurationMs(text: string): number {
  const ms = durationMs(text.trim());
  if (ms === undefined) throw new ConfigError(`"${text}" is not a duration such as ${DURATION_EXAMPLES}`);
  return ms;
}

const boolFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** A duration setting (`7d`) as milliseconds. */
const durationSetting = durationSchema.transform(parseDurationMs);

const resolvePath = (value: string) => path.resolve(value);

/** A browser origin: scheme, host and optional port, nothing else. */
const ORIGIN = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?$/;

/** A comma-separated list of browser origins (CORS, the console's frame ancestors), as a list (none when unset). */
const originList = z
  .string()
  .refine((v) => v.split(',').every((o) => ORIGIN.test(o.trim())), {
    message: 'must be a comma-separated list of origins such as https://app.example.com',
  })
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((o) => o.trim())
      .filter((o) => o !== ''),
  );

/** One setting's declaration (see `SETTINGS`). */
interface SettingSpec {
  /** Its property in `Config`; none when it is read together with others (`CombinedConfig`). */
  key?: string;
  /** Reads the environment's text (or the default) into the configuration's value. */
  schema: z.ZodType;
  default: string | undefined;
  /** Its meaning, as the README's table says it. */
  doc: string;
  /** Masked by `healthspan-admin config`. */
  secret?: true;
}

/**
 * Every setting, declared once: its environment variable, the schema that reads it into its
 * configuration value (`key` in `Config`), its default (as the environment would spell it: the
 * README's configuration table is checked against these by a test), its meaning, and whether it
 * is a secret (masked by `healthspan-admin config`). `ARTIFACT_STORE` has no key: it is read
 * with the `AWS_*` variables into `objectStore` (`objectStore()` below).
 */
export const SETTINGS = {
  PORT: {
    key: 'port',
    schema: z.coerce.number().int().min(0).max(65535),
    default: '8080',
    doc: 'listen port',
  },
  HOST: { key: 'host', schema: z.string().min(1), default: '0.0.0.0', doc: 'listen address' },
  DATA_DIR: {
    key: 'dataDir',
    schema: z.string().min(1).transform(resolvePath),
    default: './data',
    doc: 'embedded database (with report artifacts) and generated secrets',
  },
  DATABASE_URL: {
    key: 'databaseUrl',
    schema: z.string().optional(),
    default: undefined,
    doc: 'unset = SQLite in `DATA_DIR`; `postgres://…` selects PostgreSQL',
  },
  DATABASE_POOL_SIZE: {
    key: 'databasePoolSize',
    schema: z.coerce.number().int().min(1).max(1000),
    default: '10',
    doc: 'PostgreSQL connections per process at most (plus one that listens for new jobs in a worker)',
  },
  ARTIFACT_STORE: {
    schema: z.string().optional(),
    default: undefined,
    doc: 'unset = report bytes in the database; `s3://bucket/prefix` = one object per report in an S3-compatible bucket, reached with the standard `AWS_*` variables (docs/object-storage.md)',
  },
  EMBEDDED_ARTIFACTS: {
    key: 'embeddedArtifacts',
    schema: z.enum(['database', 'files']),
    default: 'database',
    doc: 'where the embedded store (SQLite, `ARTIFACT_STORE` unset) keeps report bytes: `database` = in `healthspan.sqlite`; `files` = one unsynced file per report under `DATA_DIR/artifacts/` (docs/object-storage.md)',
  },
  ARTIFACT_DOWNLOAD: {
    key: 'artifactDownload',
    schema: z.enum(['service', 'redirect']),
    default: 'service',
    doc: '`service` = downloads stream through the service (checked, audited); `redirect` = a signed link answers `302` to a presigned object URL valid for 60 s (needs `ARTIFACT_STORE`; such a URL cannot be revoked before it expires)',
  },
  PUBLIC_BASE_URL: {
    key: 'publicBaseUrl',
    schema: z.url().optional(),
    default: undefined,
    doc: 'base of signed download links (default `http://localhost:$PORT`)',
  },
  DOWNLOAD_URL_TTL_SECONDS: {
    key: 'downloadUrlTtlSeconds',
    schema: z.coerce.number().int().min(1),
    default: '900',
    doc: 'lifetime of a signed download link',
  },
  RATE_LIMIT_PER_MINUTE: {
    key: 'rateLimitPerMinute',
    schema: z.coerce.number().int().min(0),
    default: '600',
    doc: 'requests per minute per API key (the actions of console sessions it opened included); `0` disables',
  },
  REDIS_URL: {
    key: 'redisUrl',
    schema: z
      .string()
      .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
      .optional(),
    default: undefined,
    doc: 'unset = rate limits counted per process; `redis://…` shares them across API processes',
  },
  WEBHOOK_RETRY_SCHEDULE: {
    key: 'webhookRetryScheduleMs',
    schema: z
      .string()
      .refine((s) => s.split(',').every((p) => durationMs(p.trim()) !== undefined), {
        message: 'must be a comma-separated list of durations such as 0s,5s,5m',
      })
      .transform((s) => s.split(',').map(parseDurationMs)),
    default: '0s,5s,5m,30m,2h,5h,10h,10h',
    doc: 'delay before each delivery attempt',
  },
  WEBHOOK_TIMEOUT_MS: {
    key: 'webhookTimeoutMs',
    schema: z.coerce.number().int().min(1),
    default: '10000',
    doc: 'per attempt',
  },
  WEBHOOK_ALLOW_INSECURE: {
    key: 'webhookAllowInsecure',
    schema: boolFromEnv,
    default: 'false',
    doc: '`true` allows `http://` and loopback/private callback targets (development and tests only)',
  },
  WEBHOOK_DISABLE_AFTER: {
    key: 'webhookDisableAfterMs',
    schema: durationSetting,
    default: '5d',
    doc: 'an endpoint whose every delivery attempt failed for this long (counted once failures span 12 hours) is disabled: its events are held, not dropped',
  },
  WEBHOOK_ATTEMPT_RETENTION: {
    key: 'webhookAttemptRetentionMs',
    schema: durationSetting,
    default: '30d',
    doc: "delivery attempts (with the first 1 KiB of each receiver's answer) are deleted this long after they were made; a recovery may reach back this far",
  },
  WEBHOOK_SECRETS_KEY: {
    key: 'webhookSecretsKey',
    schema: z.string().min(32).optional(),
    default: undefined,
    doc: 'master key sealing webhook signing secrets and receiver keys at rest; unset = generated once into `DATA_DIR/secrets`',
    secret: true,
  },
  ERASURE_LEDGER: {
    key: 'erasureLedger',
    schema: z
      .string()
      .min(1)
      .refine((v) => !/^[a-z][a-z0-9+.-]*:\/\//i.test(v), {
        message:
          'must be a file path: a ledger at an address (s3://…, https://…) is not supported; give the path of a file on storage every process shares (docs/backup.md)',
      })
      .transform(resolvePath)
      .optional(),
    default: undefined,
    doc: 'the erasure ledger, a file kept apart from the database and its backups (docs/backup.md); unset = `DATA_DIR/erasure-ledger.jsonl` on the embedded store, `DATA_DIR/erasure-ledger-<storeId>.jsonl` on PostgreSQL (named by the database, so no other database finds it). Several hosts on one PostgreSQL database: one shared file',
  },
  ERASURE_REPLAY_ON_START: {
    key: 'erasureReplayOnStart',
    schema: boolFromEnv,
    default: 'false',
    doc: 'a database that misses erasures recorded in the ledger (restored from a backup) has them replayed at start, logged and audited; `false` refuses to start until `erasures replay` ran',
  },
  BACKUP_DIR: {
    key: 'backupDir',
    schema: z.string().min(1).transform(resolvePath).optional(),
    default: undefined,
    doc: 'SQLite only: scheduled backups are written here (docs/backup.md); unset = none',
  },
  BACKUP_INTERVAL: {
    key: 'backupIntervalMs',
    schema: durationSetting,
    default: '24h',
    doc: 'time between scheduled backups (with `BACKUP_DIR`)',
  },
  BACKUP_KEEP: {
    key: 'backupKeep',
    schema: z.coerce.number().int().min(1).max(10000),
    default: '7',
    doc: 'scheduled backups kept in `BACKUP_DIR`; older ones are deleted',
  },
  LOG_LEVEL: {
    key: 'logLevel',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    doc: 'pino log level',
  },
  MIGRATE_ON_START: {
    key: 'migrateOnStart',
    schema: boolFromEnv,
    default: 'true',
    doc: 'apply pending database migrations when the server starts',
  },
  SLA_SECONDS: {
    key: 'slaSeconds',
    schema: z.coerce.number().int().min(1),
    default: '300',
    doc: 'processing deadline after acceptance (`slaDeadlineAt`)',
  },
  JOB_MAX_ATTEMPTS: {
    key: 'jobMaxAttempts',
    schema: z.coerce.number().int().min(1).max(100),
    default: '5',
    doc: 'attempts before a pipeline job is marked failed',
  },
  WORKER_CONCURRENCY: {
    key: 'workerConcurrency',
    schema: z.coerce.number().int().min(0).max(1024),
    default: String(WORKER_DEFAULTS.concurrency),
    doc: 'pipeline jobs in flight at once in this process; `0` runs no worker',
  },
  RENDER_THREADS: {
    key: 'renderThreads',
    schema: z.union([
      z.literal('auto').transform(() => Math.max(1, os.availableParallelism() - 1)),
      z.coerce.number().int().min(0).max(64),
    ]),
    default: 'auto',
    doc: 'worker threads that render reports; `auto` = cores − 1 (at least 1), `0` renders on the main thread',
  },
  RENDER_NICE: {
    key: 'renderNice',
    schema: z.coerce.number().int().min(0).max(19),
    // 5, not 19: as good for the door in the same bench, and a thread at 19 gets a sliver of a
    // core on a host busy with other processes (docs/performance-journal.md).
    default: '5',
    doc: 'nice value each render thread gives itself (Linux: per thread), so requests and the queue come first; `0` leaves them at the process’s',
  },
  WORKER_BUSY_CONCURRENCY: {
    key: 'workerBusyConcurrency',
    schema: z.coerce.number().int().min(0).max(1024),
    default: '1',
    doc: 'pipeline jobs in flight while partners’ requests are arriving, when API and worker share a process; full `WORKER_CONCURRENCY` once the API is quiet; `0` turns this pacing off',
  },
  JOB_LEASE_SECONDS: {
    key: 'jobLeaseSeconds',
    schema: z.coerce.number().int().min(2).max(3600),
    default: String(WORKER_DEFAULTS.leaseMs / 1000),
    doc: 'a running job’s lease; a dead worker’s job runs again within this plus 5 s',
  },
  JOB_RETRY_BASE_MS: {
    key: 'jobRetryBaseMs',
    schema: z.coerce.number().int().min(1),
    default: String(WORKER_DEFAULTS.retryBaseMs),
    doc: `first retry delay; doubles per attempt (with jitter), capped at ${WORKER_DEFAULTS.retryCapMs / 60_000} minutes`,
  },
  JOB_RETENTION: {
    key: 'jobRetentionMs',
    schema: durationSetting,
    default: durationText(CLEANER_DEFAULTS.jobRetentionMs),
    doc: 'finished (completed or failed) jobs and their attempt records are deleted this long after finishing',
  },
  IDEMPOTENCY_RETENTION: {
    key: 'idempotencyRetentionMs',
    schema: durationSetting,
    default: durationText(CLEANER_DEFAULTS.idempotencyRetentionMs),
    doc: 'an idempotency record is deleted this long after it expired (its key is free from expiry on)',
  },
  RETENTION_DAYS: {
    key: 'retentionDays',
    schema: z.coerce.number().int().min(0).max(36_500),
    default: String(CLEANER_DEFAULTS.retentionDays),
    doc: 'submissions, results and reports older than this many days are erased; `0` keeps them until erased on request (an account may override it: `tenants set-retention`)',
  },
  AUDIT_RETENTION_DAYS: {
    key: 'auditRetentionDays',
    schema: z.coerce.number().int().min(1).max(36_500),
    default: String(CLEANER_DEFAULTS.auditRetentionDays),
    doc: 'audit events are deleted this many days after they were recorded (six years by default)',
  },
  DOWNLOAD_SIGNING_SECRET: {
    key: 'downloadSigningSecret',
    schema: z.string().min(32).optional(),
    default: undefined,
    doc: 'secret for signed download links; unset = generated once into `DATA_DIR/secrets`',
    secret: true,
  },
  BODY_LIMIT_BYTES: {
    key: 'bodyLimitBytes',
    schema: z.coerce.number().int().min(1024),
    default: String(1024 * 1024),
    doc: 'largest accepted request body (413 above it)',
  },
  HEADERS_TIMEOUT_MS: {
    key: 'headersTimeoutMs',
    schema: z.coerce.number().int().min(100).max(600_000),
    default: '10000',
    doc: 'a client must send its request headers within this (408 and the connection closed otherwise)',
  },
  REQUEST_TIMEOUT_MS: {
    key: 'requestTimeoutMs',
    schema: z.coerce.number().int().min(100).max(3_600_000),
    default: '30000',
    doc: 'a client must send its whole request, body included, within this (at least `HEADERS_TIMEOUT_MS`)',
  },
  KEEP_ALIVE_TIMEOUT_MS: {
    key: 'keepAliveTimeoutMs',
    schema: z.coerce.number().int().min(100).max(3_600_000),
    default: '72000',
    doc: 'an idle keep-alive connection is closed after this (longer than a load balancer’s usual 60 s)',
  },
  RESPONSE_IDLE_TIMEOUT_MS: {
    key: 'responseIdleTimeoutMs',
    schema: z.coerce.number().int().min(100).max(3_600_000),
    default: '30000',
    doc: 'a client that accepts no byte of an answer for this long (it stopped reading a download) has its connection closed',
  },
  AUTH_FAILURES_PER_MINUTE: {
    key: 'authFailuresPerMinute',
    schema: z.coerce.number().int().min(0),
    default: '10',
    doc: 'failed API-key checks per client address per minute before its unknown keys get `429`; `0` disables',
  },
  CORS_ALLOWED_ORIGINS: {
    key: 'corsAllowedOrigins',
    schema: originList,
    default: undefined,
    doc: 'browser origins allowed to call the API (CORS), comma-separated; unset = none, no CORS headers',
  },
  CONSOLE_ENABLED: {
    key: 'consoleEnabled',
    schema: boolFromEnv,
    default: 'true',
    doc: 'serve the partner console under `/console/` on the API port (docs/console.md)',
  },
  CONSOLE_FRAME_ANCESTORS: {
    key: 'consoleFrameAncestors',
    schema: originList,
    default: undefined,
    doc: "partner sites allowed to show the console in a frame, comma-separated; unset = none (`frame-ancestors 'none'`)",
  },
  HSTS_MAX_AGE_SECONDS: {
    key: 'hstsMaxAgeSeconds',
    schema: z.coerce.number().int().min(0).max(63_072_000),
    default: '31536000',
    doc: 'when `PUBLIC_BASE_URL` is https, every answer carries `Strict-Transport-Security: max-age=<this>; includeSubDomains` (one year by default); `0` sends none (a proxy that adds its own); never sent for http',
  },
  METRICS_PORT: {
    key: 'metricsPort',
    schema: z.coerce.number().int().min(0).max(65535).optional(),
    default: undefined,
    doc: 'serves Prometheus metrics at `/metrics` on this port, in every role; unset = no metrics',
  },
  METRICS_HOST: {
    key: 'metricsHost',
    schema: z.string().min(1),
    default: '127.0.0.1',
    doc: 'address the metrics listener binds (it needs no key: keep it off the partners’ network)',
  },
  OTEL_EXPORTER_OTLP_ENDPOINT: {
    key: 'otlpEndpoint',
    schema: z.url().optional(),
    default: undefined,
    doc: 'set = OpenTelemetry traces sent over OTLP/HTTP to this collector (the other standard `OTEL_*` variables apply); unset = tracing not loaded',
  },
  TRUST_PROXY: {
    key: 'trustProxy',
    schema: boolFromEnv,
    default: 'false',
    doc: 'trust `X-Forwarded-*` headers from a load balancer',
  },
} as const satisfies Record<string, SettingSpec>;

type Settings = typeof SETTINGS;
export type SettingName = keyof Settings;

/** Each keyed setting's configuration value, under its key. */
type TableConfig = {
  -readonly [N in SettingName as Settings[N] extends { key: infer K extends string } ? K : never]: z.output<
    Settings[N]['schema']
  >;
};

/** What is read from more than one setting (the checks after the table). */
interface CombinedConfig {
  /** `ARTIFACT_STORE` with the `AWS_*` variables; undefined = report bytes in the database. */
  objectStore: ObjectStoreSettings | undefined;
  /** `PUBLIC_BASE_URL`, or `http://localhost:$PORT`; no trailing slash. */
  publicBaseUrl: string;
  /** `OTEL_EXPORTER_OTLP_ENDPOINT` (or the traces-only one); undefined when the SDK is disabled. */
  otlpEndpoint: string | undefined;
}

export interface Config extends Omit<TableConfig, keyof CombinedConfig>, CombinedConfig {}

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

/** Every keyed setting read into its key, in the table's order (the first bad one is reported). */
function readTable(env: NodeJS.ProcessEnv): TableConfig {
  const values: Record<string, unknown> = {};
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const setting = SETTINGS[name];
    const value: unknown = readSetting(env, name);
    if ('key' in setting) values[setting.key] = value;
  }
  return values as TableConfig;
}

/** The traces-only endpoint also turns tracing on, unless the SDK is switched off. */
function otlpEndpoint(env: NodeJS.ProcessEnv, table: TableConfig): string | undefined {
  if (env.OTEL_SDK_DISABLED === 'true') return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return table.otlpEndpoint ?? (traces === undefined || traces === '' ? undefined : traces);
}

function objectStore(env: NodeJS.ProcessEnv): ObjectStoreSettings | undefined {
  try {
    return objectStoreSettings(env);
  } catch (error) {
    if (error instanceof ObjectStoreSettingError) throw new ConfigError(error.message);
    throw error;
  }
}

function checkCombinations(table: TableConfig, store: ObjectStoreSettings | undefined): void {
  if (table.requestTimeoutMs < table.headersTimeoutMs) {
    throw new ConfigError('REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS');
  }
  if (table.artifactDownload === 'redirect' && store === undefined) {
    throw new ConfigError(
      'ARTIFACT_DOWNLOAD: redirect needs ARTIFACT_STORE (an object store to redirect to)',
    );
  }
  if (table.embeddedArtifacts !== 'database' && (store !== undefined || table.databaseUrl !== undefined)) {
    throw new ConfigError(
      'EMBEDDED_ARTIFACTS: applies to the embedded store only; unset it with DATABASE_URL or ARTIFACT_STORE',
    );
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const table = readTable(env);
  const store = objectStore(env);
  checkCombinations(table, store);
  return {
    ...table,
    objectStore: store,
    publicBaseUrl: (table.publicBaseUrl ?? `http://localhost:${table.port}`).replace(/\/+$/, ''),
    otlpEndpoint: otlpEndpoint(env, table),
  };
}
