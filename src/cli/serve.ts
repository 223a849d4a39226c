import { type Command, Option } from 'commander';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import type { ServiceRole } from '../service-role.js';
import { startFailureLine } from '../start-failure.js';

/** `healthspan-admin serve`: the service in the foreground until a signal stops it. */
export function addServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Run the service: the partner API, a worker, or both (the default)')
    .addOption(
      new Option(
        '--role <role>',
        'api: partner API only; worker: jobs only (with /health and /ready); all: both',
      )
        .choices(['all', 'api', 'worker'])
        .default('all'),
    )
    .action(async (opts: { role: ServiceRole }) => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel);
      // Loaded here, not at the top: the service's modules (HTTP server, PDF fonts, queue
      // clients) took most of a second of every other command's start.
      const { startService, stopOnSignals } = await import('../service.js');
      let service: Awaited<ReturnType<typeof startService>>;
      try {
        service = await startService(config, { logger, role: opts.role, clock: systemClock });
      } catch (error) {
        // As `npm start` says it, and the process ends: a start that failed may leave timers behind.
        process.stderr.write(startFailureLine(error));
        process.exit(1);
      }
      stopOnSignals(service, logger);
      await new Promise(() => {});
    });
}
