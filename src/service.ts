import type { Server } from 'node:http';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Authenticator } from './auth/authenticator.js';
import type { Clock } from './clock.js';
import { type Config, ConfigError } from './config.js';
import { configSummary } from './config-summary.js';
import { JOB_TYPES } from './domain/statuses.js';
import { type AppDeps, buildApp } from './http/app.js';
import { PageCursors } from './http/cursor.js';
import { DownloadLinks } from './http/download-links.js';
import type { ListenTiming } from './http/listen-stream.js';
import { checksIdentity } from './ingest/index.js';
import { removeLeftovers } from './lifecycle/backup.js';
import { BackupScheduler, lastBackupSeconds } from './lifecycle/backup-scheduler.js';
import { registerErasureJobs } from './lifecycle/erasure-job.js';
import type { ReplayReport } from './lifecycle/replay.js';
import { checkLedgerBeforeOpening, guardLedger } from './lifecycle/start-guard.js';
import { checkPortFree, explainListenFailure } from './listen-failure.js';
import { createLogger } from './logger.js';
import { WebhookEndpoints } from './operations/callback-endpoint.js';
import {
  InlineReportRenderer,
  type ReportRenderer,
  ThreadedReportRenderer,
} from './pipeline/report-renderer.js';
import { registerPipelineJobs } from './pipeline/steps.js';
import { JobKinds } from './queue/kinds.js';
import { Cleaner } from './queue/maintenance/cleaner.js';
import { Rescuer } from './queue/maintenance/rescuer.js';
import { Maintenance } from './queue/maintenance/service.js';
import { DoorSignal, doorPacer, PACING_QUIET_MS } from './queue/pacing.js';
import { Worker } from './queue/worker.js';
import { type ReadinessCheck, readiness } from './readiness.js';
import type { ServiceRole } from './service-role.js';
import { FileArtifactStore } from './store/embedded/file-artifact-store.js';
import { checkArtifactStoreOf, isPostgresUrl, maintenanceDatabase, Store } from './store/index.js';
import { ERASURE_JOB_TYPE } from './store/repositories/erasures.js';
import { loadOrCreateSecret } from './store/secrets.js';
import { sqliteFile } from './store/sqlite/driver.js';
import { ServiceMetrics } from './telemetry/metrics.js';
import { type MetricsServer, serveMetrics } from './telemetry/metrics-server.js';
import { startTracing } from './telemetry/tracing.js';
import { VERSION } from './version.js';
import { WebhookAdmin } from './webhooks/admin.js';
import { EventResend } from './webhooks/events.js';
import { listenSecretsFor, registerWebhookJobs, secretBoxFor } from './webhooks/index.js';
import { TestEvents } from './webhooks/test-events.js';

export interface RunningService {
  app: FastifyInstance;
  /** Where this process serves its Prometheus metrics, when METRICS_PORT is set. */
  metricsUrl: string | undefined;
  store: Store;
  worker: Worker | undefined;
  maintenance: Maintenance | undefined;
  logger: Logger;
  /** The address actually bound (useful with PORT=0). */
  url: string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /**
   * The service's one clock: the queue (due times, leases, retries), the steps, webhook
   * signatures, download links, the API-key cache, maintenance and what requests stamp. The real
   * time (`systemClock`) in a deployment; tests pass one they move instead of waiting.
   */
  clock: Clock;
  /** Where the lines go; the service's own logger (`createLogger`) unless given. */
  logger?: Logger;
  /** `all` (the default), `api` or `worker`. */
  role?: ServiceRole;
  /** The test events stream's pacing (`LISTEN_TIMING` unless given): tests shorten the heartbeat. */
  listenTiming?: Partial<ListenTiming>;
  /** The rate limit's window (a minute unless given): a test shortens it rather than wait a minute. */
  rateLimitWindowMs?: number;
}

/**
 * Opens the store, applies migrations when configured, and starts listening. `all` runs the
 * partner API and a worker; `api` the partner API only; `worker` a worker, with /health and
 * /ready on PORT for the process manager's probes. Processes that run a worker also run the
 * maintenance services (rescuer, cleaner), which take turns across processes.
 */
export async function startService(config: Config, options: ServiceOptions): Promise<RunningService> {
  const { clock, role = 'all', logger = createLogger(config.logLevel) } = options;
  checkSettings(config, role);
  // The door's and the check step's fingerprint, taken now rather than by the first submission.
  checksIdentity();
  // Before the store opens: the pg instrumentation must patch the client before it connects.
  const listenAt = { setting: 'PORT', port: config.port, hostSetting: 'HOST', host: config.host } as const;
  await checkPortFree(listenAt);
  const stopTracing = config.otlpEndpoint ? await startTracing({ serviceVersion: VERSION, role }) : undefined;
  const { store, replayed } = await openServiceStore(config, { clock, logger, stopTracing });
  // The worker yields to partners' requests only when both share this process's event loop.
  const door = role === 'all' && config.workerBusyConcurrency > 0 ? new DoorSignal() : undefined;
  const background =
    role !== 'api' && config.workerConcurrency > 0
      ? createWorker(config, store, logger, clock, door)
      : undefined;
  const worker = background?.worker;
  const readinessChecks = worker ? [{ name: 'queue' as const, check: () => worker.health() }] : [];
  const app = await buildApp({
    ...appDeps(config, store, { clock, logger, role, readinessChecks }),
    ...(options.listenTiming ? { listenTiming: options.listenTiming } : {}),
    ...(options.rateLimitWindowMs ? { rateLimitWindowMs: options.rateLimitWindowMs } : {}),
  });
  if (door) watchDoor(app.server, door);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    await app.close();
    await worker?.stop();
    await store.close();
    await stopTracing?.();
    throw explainListenFailure(error, listenAt);
  }
  const metrics =
    config.metricsPort === undefined
      ? undefined
      : await startMetrics(
          config,
          { store, clock, role, readinessChecks, replayedAtStart: replayed?.erasures ?? 0 },
          logger,
        );
  worker?.start();
  background?.maintenance.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  logger.info(
    {
      port,
      metrics: metrics?.server.url,
      tracing: stopTracing !== undefined,
      ...configSummary(config, role, store.describe),
    },
    'healthspan listening',
  );
  warnOfSettings(config, logger);
  return {
    app,
    store,
    worker,
    maintenance: background?.maintenance,
    logger,
    url: `http://${host}:${port}`,
    metricsUrl: metrics?.server.url,
    stop: once(async () => {
      await app.close();
      await background?.maintenance.stop();
      await worker?.stop();
      await metrics?.server.close();
      metrics?.registry.close();
      await store.close();
      // Last: the spans of the shutdown's own writes are exported too.
      await stopTracing?.();
      logger.info({ role }, 'healthspan stopped');
    }),
  };
}

/**
 * The object store (ARTIFACT_STORE) answers, its bucket exists, and these credentials may write,
 * read and delete there; else the start stops with the check's one sentence naming the setting.
 */
async function checkArtifactStore(config: Config): Promise<void> {
  try {
    await checkArtifactStoreOf(config);
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
}

/** Refuses a worker with nothing to run. */
function checkSettings(config: Config, role: ServiceRole): void {
  if (role === 'worker' && config.workerConcurrency <= 0) {
    throw new ConfigError('a worker process needs WORKER_CONCURRENCY above 0');
  }
  if (config.backupDir !== undefined && config.databaseUrl !== undefined) {
    throw new ConfigError(
      'BACKUP_DIR schedules backups of the embedded store only: on PostgreSQL unset it and back up with pg_basebackup or pg_dump (docs/backup.md)',
    );
  }
}

/**
 * The store, reachable and migrated (MIGRATE_ON_START): a database that is missing or refuses
 * stops the start with one sentence (`DatabaseUnavailableError`), and nothing is left open; so
 * does a database that misses erasures its ledger recorded, unless they are replayed now
 * (`guardLedger`, docs/backup.md). What can refuse is checked before the store is opened for
 * writing (the database read-only, the object store on its own), so a refused start writes
 * nothing to the database.
 */
async function openServiceStore(
  config: Config,
  parts: { clock: Clock; logger: Logger; stopTracing: (() => Promise<void>) | undefined },
): Promise<{ store: Store; replayed: ReplayReport | undefined }> {
  const { clock, logger } = parts;
  let settled: boolean;
  try {
    settled = await checkLedgerBeforeOpening(config, logger);
    await checkArtifactStore(config);
  } catch (error) {
    await parts.stopTracing?.();
    throw error;
  }
  if (!isPostgresUrl(config.databaseUrl)) {
    // A killed restore's copy of a database (health data included) that nothing would remove.
    const left = await removeLeftovers(path.resolve(config.dataDir));
    if (left.removed.length > 0) logger.warn(left, 'removed what a killed restore left in DATA_DIR');
  }
  const store = Store.open(config, { clock, logger, background: true });
  try {
    await store.checkConnection();
    if (config.migrateOnStart) {
      const { applied } = await store.migrate();
      if (applied.length > 0) logger.info({ applied }, 'migrations applied');
    }
    // Settled before the writable open stays settled: an erasure appended meanwhile (another
    // process) is applied by the database in the same commit.
    const replayed = settled ? undefined : await guardLedger(config, store, { clock, logger });
    return { store, replayed };
  } catch (error) {
    await store.close();
    await parts.stopTracing?.();
    throw error;
  }
}

/**
 * Warns of settings fit for development only, once the process has started (a start that fails
 * says only why it failed). The secrets warning applies where several processes share the data:
 * with DATABASE_URL (docs/deployment.md); one SQLite process keeps its generated secrets itself.
 */
function warnOfSettings(config: Config, logger: Logger): void {
  if (config.webhookAllowInsecure) {
    logger.warn(
      'WEBHOOK_ALLOW_INSECURE is on: callbacks may go to http:// and to loopback or private addresses. Development and tests only.',
    );
  }
  const unset = [
    ...(config.downloadSigningSecret ? [] : ['DOWNLOAD_SIGNING_SECRET']),
    ...(config.webhookSecretsKey ? [] : ['WEBHOOK_SECRETS_KEY']),
  ];
  const maintenance = maintenanceDatabase(config.databaseUrl);
  if (maintenance) logger.warn(maintenance);
  if (config.databaseUrl && unset.length > 0) {
    logger.warn(
      `DATABASE_URL is set but ${unset.join(' and ')} ${unset.length > 1 ? 'are' : 'is'} not: generated into DATA_DIR instead, so processes that do not share DATA_DIR will not accept each other’s download links or open each other’s webhook secrets. If several processes share this database, set both, the same everywhere.`,
    );
  }
}

/** What the HTTP app is built from: the store reached only through two functions, and the clock. */
function appDeps(
  config: Config,
  store: Store,
  parts: { clock: Clock; logger: Logger; role: ServiceRole; readinessChecks: ReadinessCheck[] },
): AppDeps {
  const { clock } = parts;
  const secret = config.downloadSigningSecret
    ? Buffer.from(config.downloadSigningSecret, 'utf8')
    : loadOrCreateSecret(config.dataDir, 'download-signing.key');
  const listenSecrets = listenSecretsFor(config);
  return {
    config,
    // Two functions, not the store: nothing reachable from a route leads to `store.system`.
    tenants: { forTenant: (id) => store.forTenant(id), forArtifact: (id) => store.forArtifact(id) },
    isReady: () => store.isReady(),
    consoleSessions: store.console,
    signingSecret: secret,
    authenticator: new Authenticator(store.system.accounts, { clock: () => clock().getTime() }),
    logger: parts.logger,
    links: new DownloadLinks(secret, config.publicBaseUrl, config.downloadUrlTtlSeconds),
    cursors: new PageCursors(secret),
    testEvents: new TestEvents(
      new WebhookAdmin(store.system, secretBoxFor(config), {
        allowInsecure: config.webhookAllowInsecure,
        scheduleMs: config.webhookRetryScheduleMs,
        clock,
        tenants: store,
      }),
    ),
    webhookEndpoints: new WebhookEndpoints(secretBoxFor(config), {
      allowInsecure: config.webhookAllowInsecure,
      clock,
    }),
    events: new EventResend({
      clock,
      scheduleMs: config.webhookRetryScheduleMs,
      attemptRetentionMs: config.webhookAttemptRetentionMs,
    }),
    listenSecret: (keyId) => listenSecrets.secretFor(keyId),
    clock,
    role: parts.role,
    readinessChecks: parts.readinessChecks,
  };
}

/** `fn` run once, however often it is called; every call gets that run's promise. */
function once(fn: () => Promise<void>): () => Promise<void> {
  let running: Promise<void> | undefined;
  return () => {
    running ??= fn();
    return running;
  };
}

/** The Prometheus registry of this process and the listener that serves it. */
async function startMetrics(
  config: Config,
  parts: {
    store: Store;
    clock: Clock;
    role: ServiceRole;
    readinessChecks: ReadinessCheck[];
    replayedAtStart: number;
  },
  logger: Logger,
): Promise<{ registry: ServiceMetrics; server: MetricsServer }> {
  const { store, clock } = parts;
  const backupDir = config.backupDir;
  const startedAt = clock().getTime() / 1000;
  const registry = new ServiceMetrics({
    queue: () => store.system.jobs.queueCounts(clock()),
    endpoints: () => store.system.endpointHealth.countsByStatus(),
    ready: async () => (await readiness(() => store.isReady(), parts.readinessChecks)).ok,
    now: clock,
    ledgerPosition: async () => (await store.system.ledger.state()).seq,
    // No backup yet: counted from when this process began scheduling them.
    ...(backupDir === undefined ? {} : { lastBackupAt: () => lastBackupSeconds(backupDir) ?? startedAt }),
    replayedAtStart: parts.replayedAtStart,
    jobTypes: [...JOB_TYPES, ERASURE_JOB_TYPE],
    info: { version: VERSION, role: parts.role, store: store.driver.name },
  });
  try {
    const server = await serveMetrics(
      registry,
      { host: config.metricsHost, port: config.metricsPort ?? 0 },
      logger,
    );
    return { registry, server };
  } catch (error) {
    registry.close();
    throw explainListenFailure(error, {
      setting: 'METRICS_PORT',
      port: config.metricsPort ?? 0,
      hostSetting: 'METRICS_HOST',
      host: config.metricsHost,
    });
  }
}

/** Every job kind this service runs: the pipeline's steps, the webhook deliveries and erasures. */
export function serviceJobKinds(
  config: Config,
  store: Store,
  renderer: ReportRenderer,
  clock: Clock,
): JobKinds {
  const kinds = new JobKinds();
  registerPipelineJobs(kinds, {
    store: store.system,
    renderer,
    maxAttempts: config.jobMaxAttempts,
    clock,
    webhookScheduleMs: config.webhookRetryScheduleMs,
  });
  registerWebhookJobs(kinds, {
    store: store.system,
    box: secretBoxFor(config),
    config: {
      scheduleMs: config.webhookRetryScheduleMs,
      timeoutMs: config.webhookTimeoutMs,
      allowInsecure: config.webhookAllowInsecure,
      disableAfterMs: config.webhookDisableAfterMs,
    },
    clock,
  });
  registerErasureJobs(kinds, { store: store.system, clock });
  return kinds;
}

/** Tells the door signal of every request the server takes, as it arrives. */
function watchDoor(server: Server, door: DoorSignal): void {
  server.on('request', () => door.arrived());
}

/** A worker running every job kind, and the maintenance services beside it. */
export function createWorker(
  config: Config,
  store: Store,
  logger: Logger,
  clock: Clock,
  door?: DoorSignal,
): { worker: Worker; maintenance: Maintenance } {
  const renderer: ReportRenderer =
    config.renderThreads > 0
      ? new ThreadedReportRenderer(config.renderThreads, config.renderNice)
      : new InlineReportRenderer();
  const kinds = serviceJobKinds(config, store, renderer, clock);
  const leaseMs = config.jobLeaseSeconds * 1000;
  const retry = { retryBaseMs: config.jobRetryBaseMs };
  const worker = new Worker({
    store: store.system,
    kinds,
    logger,
    clock,
    concurrency: config.workerConcurrency,
    leaseMs,
    ...retry,
    ...(door
      ? {
          pacer: doorPacer(door, { busyConcurrency: config.workerBusyConcurrency, quietMs: PACING_QUIET_MS }),
        }
      : {}),
  });
  worker.onStopped(() => renderer.close?.());
  const maintenance = new Maintenance(
    [
      new Rescuer({ store: store.system, kinds, logger, clock, retry }),
      new Cleaner({
        store: store.system,
        clock,
        jobRetentionMs: config.jobRetentionMs,
        idempotencyRetentionMs: config.idempotencyRetentionMs,
        retentionDays: config.retentionDays,
        auditRetentionDays: config.auditRetentionDays,
        webhookAttemptRetentionMs: config.webhookAttemptRetentionMs,
        ...(isPostgresUrl(config.databaseUrl) || store.system.artifacts instanceof FileArtifactStore
          ? {}
          : { leftArtifactFilesIn: config.dataDir }),
      }),
      ...(config.backupDir === undefined
        ? []
        : [
            new BackupScheduler({
              source: sqliteFile(config.dataDir),
              dir: config.backupDir,
              intervalMs: config.backupIntervalMs,
              keep: config.backupKeep,
              clock,
            }),
          ]),
    ],
    clock,
    logger,
  );
  return { worker, maintenance };
}

/** How long a shutdown may take before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 15_000;

/**
 * SIGTERM or SIGINT stops the service (requests drained, running jobs finished or handed back,
 * the store closed) and ends the process; should that take longer than `SHUTDOWN_GRACE_MS`, the
 * process exits anyway, with status 1, and what it held is rescued like a crashed worker's.
 */
export function stopOnSignals(service: RunningService, logger: Logger): void {
  const shutdown = (signal: string) => {
    logger.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      logger.error({ graceMs: SHUTDOWN_GRACE_MS }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
    service.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
