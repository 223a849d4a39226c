import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
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

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  worker: Worker | undefined;
  logger: Logger;
  /** The address actually bound (useful with PORT=0). */
  url: string;
  stop(): Promise<void>;
}

/** Opens the store, applies migrations when configured, and starts listening. */
export async function startService(
  config: Config,
  logger: Logger = createLogger(config.logLevel),
): Promise<RunningService> {
  const store = Store.open(config, logger);
  if (config.migrateOnStart) {
    const { applied } = await store.migrate();
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  const secret = config.downloadSigningSecret
    ? Buffer.from(config.downloadSigningSecret, 'utf8')
    : loadOrCreateSecret(config.dataDir, 'download-signing.key');
  const links = new DownloadLinks(secret, config.publicBaseUrl, config.downloadUrlTtlSeconds);
  const app = await buildApp({ config, store, logger, links });
  await app.listen({ port: config.port, host: config.host });
  const worker = config.workerConcurrency > 0 ? createWorker(config, store, logger) : undefined;
  worker?.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  logger.info({ port, store: store.connection.describe }, 'healthspan listening');
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
      })();
      return stopping;
    },
  };
}

export function createWorker(config: Config, store: Store, logger: Logger): Worker {
  const renderer: ReportRenderer =
    config.renderThreads > 0 ? new ThreadedReportRenderer(config.renderThreads) : new InlineReportRenderer();
  const worker = new Worker({
    jobs: store.jobs,
    batcher: store.batcher,
    notifier: store.notifier,
    logger,
    definitions: pipelineDefinitions({
      store,
      renderer,
      maxAttempts: config.jobMaxAttempts,
      clock: () => new Date(),
    }),
    concurrency: config.workerConcurrency,
    leaseMs: config.jobLeaseSeconds * 1000,
    heartbeatMs: Math.max(500, Math.floor((config.jobLeaseSeconds * 1000) / 3)),
    pollMs: 1000,
    rescueEveryMs: 5000,
    retryBaseMs: config.jobRetryBaseMs,
    retryCapMs: 5 * 60_000,
  });
  worker.onStopped(() => renderer.close?.());
  return worker;
}
