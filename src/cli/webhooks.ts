import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config.js';
import { DURATION_EXAMPLES } from '../domain/duration.js';
import type { ApiMode } from '../domain/mode.js';
import { WebhookAdmin } from '../webhooks/admin.js';
import { secretBoxFor } from '../webhooks/index.js';
import { ROTATION_ACTIVATE_IN, rotationDelayMs } from '../webhooks/rotation.js';
import { modeOption, requireLimit, requireUuid, UsageError } from './arguments.js';
import { print } from './output.js';
import { ORIGIN, withStore } from './store.js';

async function withWebhooks<T>(fn: (admin: WebhookAdmin) => Promise<T>): Promise<T> {
  const config = loadConfig();
  return withStore((store, scoped) =>
    fn(
      new WebhookAdmin(store, secretBoxFor(config), {
        allowInsecure: config.webhookAllowInsecure,
        scheduleMs: config.webhookRetryScheduleMs,
        clock: systemClock,
        origin: ORIGIN,
        tenants: scoped,
      }),
    ),
  );
}

/** `healthspan-admin webhooks`: a partner credential's result.ready callback and its deliveries. */
export function addWebhooksCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('result.ready callbacks');
  addSet(webhooks);
  webhooks
    .command('show')
    .description(
      "A partner credential's callback endpoint: URL, receiver key header, signing secrets' ids and activation (never a secret)",
    )
    .requiredOption('--partner <partnerId>')
    .addOption(modeOption('callback endpoint'))
    .action(async (opts: { partner: string; mode: ApiMode }) => {
      const partnerId = requireUuid(opts.partner, '--partner');
      print(await withWebhooks((admin) => admin.show(partnerId, opts.mode)));
    });
  webhooks
    .command('rotate-secret')
    .description(
      `Make a new signing secret that takes effect after --activate-in (default ${ROTATION_ACTIVATE_IN})`,
    )
    .requiredOption('--partner <partnerId>')
    .option('--activate-in <duration>', 'for example 0s, 30m, 24h, 7d', ROTATION_ACTIVATE_IN)
    .addOption(modeOption('callback endpoint'))
    .action(async (opts: { partner: string; activateIn: string; mode: ApiMode }) => {
      const partnerId = requireUuid(opts.partner, '--partner');
      const ms = rotationDelayMs(opts.activateIn);
      if (ms === undefined)
        throw new UsageError(
          `--activate-in must be a duration such as ${DURATION_EXAMPLES}, at most 30d, got "${opts.activateIn}"`,
        );
      print(await withWebhooks((admin) => admin.rotateSecret(partnerId, ms, opts.mode)));
    });
  addDeliveryCommands(webhooks);
}

function addSet(webhooks: Command): void {
  webhooks
    .command('set')
    .description("Register (or change) the partner credential's callback URL; prints its signing secret")
    .requiredOption('--partner <partnerId>')
    .requiredOption('--url <url>')
    .option('--api-key <key>', 'key the receiver expects with each delivery')
    .option('--api-key-header <name>', 'header carrying --api-key (default X-Api-Key)')
    .addOption(modeOption('separate callback endpoint'))
    .action(
      async (opts: {
        partner: string;
        url: string;
        apiKey?: string;
        apiKeyHeader?: string;
        mode: ApiMode;
      }) => {
        const partnerId = requireUuid(opts.partner, '--partner');
        print(
          await withWebhooks((admin) =>
            admin.set(partnerId, opts.url, {
              apiKey: opts.apiKey,
              apiKeyHeader: opts.apiKeyHeader,
              mode: opts.mode,
            }),
          ),
        );
      },
    );
}

/** `redeliver` and `deliveries`: what was sent, and sending it again. */
function addDeliveryCommands(webhooks: Command): void {
  webhooks
    .command('redeliver')
    .description("Send a result's result.ready event again, from the first step of the retry schedule")
    .requiredOption('--result <resultId>')
    .action(async (opts: { result: string }) => {
      const resultId = requireUuid(opts.result, '--result');
      print(await withWebhooks((admin) => admin.redeliver(resultId)));
    });
  webhooks
    .command('deliveries')
    .description('Recent events of a partner credential with every delivery attempt')
    .requiredOption('--partner <partnerId>')
    .option('--limit <n>', 'events to show, newest first', '50')
    .addOption(modeOption('callback endpoint'))
    .action(async (opts: { partner: string; limit: string; mode: ApiMode }) => {
      const partnerId = requireUuid(opts.partner, '--partner');
      const limit = requireLimit(opts.limit);
      print(await withWebhooks((admin) => admin.deliveries(partnerId, limit, opts.mode)));
    });
}
