import { type Command, Option } from 'commander';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config.js';
import { API_MODES, type ApiMode } from '../domain/mode.js';
import { createConsoleLink, DEFAULT_TTL_SECONDS, MAX_TTL_SECONDS } from '../operations/console-links.js';
import { requireUuid, UsageError } from './arguments.js';
import { print } from './output.js';
import { ORIGIN, withStore } from './store.js';

/**
 * `healthspan-admin console link`: a one-time console link for a partner's account, made by the
 * operator (no API key: the session ends with the account, its time limit or 30 idle minutes).
 */
export function addConsoleCommands(program: Command): void {
  const console = program.command('console').description('The partner console (docs/console.md)');
  console
    .command('link')
    .description(
      'Print a one-time sign-in link to the console of a partner’s account (usable once, within 5 minutes)',
    )
    .requiredOption('--partner <partnerId>', 'partner credential whose account the console shows')
    .addOption(
      new Option('--scope <scope>', 'read, or manage (may change things)')
        .choices(['read', 'manage'])
        .default('read'),
    )
    .addOption(
      new Option('--mode <mode>', 'live, or test (the account’s test data)')
        .choices(API_MODES)
        .default('live'),
    )
    .option(
      '--ttl-seconds <seconds>',
      `session lifetime, 300 to ${MAX_TTL_SECONDS}`,
      String(DEFAULT_TTL_SECONDS),
    )
    .action(
      async (opts: { partner: string; scope: 'read' | 'manage'; mode: ApiMode; ttlSeconds: string }) => {
        const partnerId = requireUuid(opts.partner, '--partner');
        const ttlSeconds = Number(opts.ttlSeconds);
        if (!Number.isInteger(ttlSeconds) || ttlSeconds < 300 || ttlSeconds > MAX_TTL_SECONDS) {
          throw new UsageError(`--ttl-seconds must be a whole number from 300 to ${MAX_TTL_SECONDS}`);
        }
        const { publicBaseUrl } = loadConfig();
        const link = await withStore(async (system, store) => {
          const partner = await system.accounts.partnerForMode(partnerId, opts.mode);
          return createConsoleLink(
            store.console,
            { tenantId: partner.tenantId, keyId: null, scope: opts.scope, ttlSeconds },
            { now: systemClock(), publicBaseUrl, origin: ORIGIN },
          );
        });
        print({ partnerId, mode: opts.mode, scope: opts.scope, ...link });
      },
    );
}
