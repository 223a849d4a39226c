import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { buildApp } from './http/app.js';
import { createLogger } from './logger.js';
import { Store } from './store/index.js';

export interface RunningService {
  app: FastifyInstance;
  store: Store;
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
  const store = Store.open(config);
  if (config.migrateOnStart) {
    const { applied } = await store.migrate();
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  const app = await buildApp({ config, store, logger });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  logger.info({ port, store: store.connection.describe }, 'healthspan listening');
  let stopping: Promise<void> | undefined;
  return {
    app,
    store,
    logger,
    url: `http://${host}:${port}`,
    stop() {
      stopping ??= (async () => {
        await app.close();
        await store.close();
      })();
      return stopping;
    },
  };
}
