import { systemClock } from './clock.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger } from './logger.js';
import { startService, stopOnSignals } from './service.js';
import { startFailureLine } from './start-failure.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`healthspan: configuration error: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel);
  stopOnSignals(await startService(config, { logger, clock: systemClock }), logger);
}

main().catch((error: unknown) => {
  process.stderr.write(startFailureLine(error));
  process.exit(1);
});
