import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { Authenticator } from './auth/authenticator.js';
import { type Config, ConfigError } from './config.js';
import { configSummary } from './config-summary.js';
import { buildApp, type ServiceRole } from './http/app.js';
import { DownloadLinks } from './http/download-links.js';
import { createLogger } from './logger.js';
import {
  InlineReportRenderer,
  type ReportRenderer,
  ThreadedReportRenderer,
} from './pipeline/report-renderer.js';
import { pipelineDefinitions } from './pipeline/steps.js';
import { Worker } from './queue/worker.js';
import { Store } from './store/index.js';
import { loadOrCreateSecret } from './store/secrets.js';
import { deliveryJobs, secretBoxFor } from './webhooks/index.js';

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  worker: Worker | undefined;
  logger: Logger;
  /** The address actually bound (useful with PORT=0). */
  url: string;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /**
   * The clock the API key cache reads (`Authenticator`'s `clock`), in milliseconds. Only tests
   * set it: they move it past the cache's epoch check to see a revocation at once, instead of
   * sleeping through the check interval and racing it on a loaded machine. Unset, the real time.
   */
  authClock?: () => number;
  /**
   * The clock the worker's queue runs on (`Worker`'s `clock`: due times, leases, retry delays).
   * Only tests set it, to make a retry scheduled far ahead due at once instead of waiting for
   * it; what the steps stamp and sign keeps the real time. Unset, the real time.
   */
  queueClock?: () => Date;
}

/**
 * Opens the store, applies migrations when configured, and starts listening. `all` runs the
 * partner API and a worker; `api` the partner API only; `worker` a worker, with /health and
 * /ready on PORT for the process manager's probes.
 */
export async function startService(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
  role: ServiceRole = 'all',
  options: ServiceOptions = {},
): Promise<RunningService> {
  if (role === 'worker' && config.workerConcurrency <= 0) {
    throw new ConfigError('a worker process needs WORKER_CONCURRENCY above 0');
  }
  if (config.webhookAllowInsecure) {
    logger.warn(
      'WEBHOOK_ALLOW_INSECURE is on: callbacks may go to http:// and to loopback or private addresses. Development and tests only.',
    );
  }
  if (config.databaseUrl && (!config.downloadSigningSecret || !config.webhookSecretsKey)) {
    logger.warn(
      'DATABASE_URL is set but DOWNLOAD_SIGNING_SECRET or WEBHOOK_SECRETS_KEY is not: each is generated into DATA_DIR, so processes that do not share DATA_DIR will not accept each other’s download links or open each other’s webhook secrets. Set both, the same everywhere.',
    );
  }
  const store = Store.open(config, logger);
  if (config.migrateOnStart) {
    const { applied } = await store.migrate();
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  const secret = config.downloadSigningSecret
    ? Buffer.from(config.downloadSigningSecret, 'utf8')
    : loadOrCreateSecret(config.dataDir, 'download-signing.key');
  const links = new DownloadLinks(secret, config.publicBaseUrl, config.downloadUrlTtlSeconds);
  const worker =
    role !== 'api' && config.workerConcurrency > 0
      ? createWorker(config, store, logger, options.queueClock)
      : undefined;
  const readinessChecks = worker ? [{ name: 'queue' as const, check: () => worker.health() }] : [];
  const app = await buildApp({
    config,
    store,
    logger,
    links,
    role,
    readinessChecks,
    ...(options.authClock
      ? { authenticator: new Authenticator(store.accounts, { clock: options.authClock }) }
      : {}),
  });
  await app.listen({ port: config.port, host: config.host });
  worker?.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  logger.info({ port, ...configSummary(config, role, store.connection.describe) }, 'healthspan listening');
  let stopping: Promise<void> | undefined;
  return {
    app,
    store,
    worker,
    logger,
    url: `http://${host}:${port}`,
    stop() {
      stopping ??= (async () => {
        await app.close();
        await worker?.stop();
        await store.close();
        logger.info({ role }, 'healthspan stopped');
      })();
      return stopping;
    },
  };
}

export function createWorker(config: Config, store: Store, logger: Logger, queueClock?: () => Date): Worker {
  const renderer: ReportRenderer =
    config.renderThreads > 0 ? new ThreadedReportRenderer(config.renderThreads) : new InlineReportRenderer();
  const worker = new Worker({
    jobs: store.jobs,
    batcher: store.batcher,
    notifier: store.notifier,
    logger,
    definitions: {
      ...pipelineDefinitions({
        store,
        renderer,
        maxAttempts: config.jobMaxAttempts,
        clock: () => new Date(),
        webhookScheduleMs: config.webhookRetryScheduleMs,
      }),
      ...deliveryJobs({
        store,
        box: secretBoxFor(config),
        config: {
          scheduleMs: config.webhookRetryScheduleMs,
          timeoutMs: config.webhookTimeoutMs,
          allowInsecure: config.webhookAllowInsecure,
        },
        logger,
        clock: () => new Date(),
      }),
    },
    concurrency: config.workerConcurrency,
    leaseMs: config.jobLeaseSeconds * 1000,
    heartbeatMs: Math.max(500, Math.floor((config.jobLeaseSeconds * 1000) / 3)),
    pollMs: 1000,
    rescueEveryMs: 5000,
    retryBaseMs: config.jobRetryBaseMs,
    retryCapMs: 5 * 60_000,
    ...(queueClock ? { clock: queueClock } : {}),
  });
  worker.onStopped(() => renderer.close?.());
  return worker;
}
