import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { generateApiKey } from '../auth/api-keys.js';
import { systemClock } from '../clock.js';
import { type Config, ConfigError, loadConfig, parseDurationMs } from '../config.js';
import { AUDIT_ACTIONS, type AuditAction } from '../domain/audit.js';
import { isUuid } from '../domain/ids.js';
import { API_MODES, type ApiMode } from '../domain/mode.js';
import type { ServiceRole } from '../http/app.js';
import { createLogger } from '../logger.js';
import { startService, stopOnSignals } from '../service.js';
import { NoStoreError, Store, type SystemStore } from '../store/index.js';
import { NoSandboxError, NotFoundError, operatorOrigin } from '../store/repositories/accounts.js';
import { VERSION } from '../version.js';
import { WebhookAdmin, WebhookAdminError } from '../webhooks/admin.js';
import { secretBoxFor } from '../webhooks/index.js';

/** A failure the operator caused (bad id, bad flag): message only, exit 1. */
class UsageError extends Error {}

function requireUuid(value: string, what: string): string {
  if (!isUuid(value)) throw new UsageError(`${what} must be a UUID, got "${value}"`);
  return value.toLowerCase();
}

function requireName(value: string): string {
  const name = value.trim();
  if (name.length < 1 || name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
  return name;
}

/** Every change a command makes is audited as the operator's, under one id per command. */
const ORIGIN = operatorOrigin(`cli:${randomUUID()}`);

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

/** The operator's store, on the real time; `existing`: refuse, naming it, a store that is not there. */
function openStore(config: Config, opts: { existing?: boolean } = {}): Store {
  try {
    return Store.open(config, { clock: systemClock, existing: opts.existing === true });
  } catch (error) {
    if (!(error instanceof NoStoreError)) throw error;
    throw new UsageError(
      `${error.message} (DATA_DIR=${path.resolve(config.dataDir)}); run "healthspan migrate" there to create one, or set DATA_DIR to the service's data directory`,
    );
  }
}

/**
 * Opens the store a command works on. Only `migrate`, `quickstart` and `serve` may create one
 * (`create`); every other command fails, naming the store it looked for, when there is none or
 * it is not migrated, and leaves nothing behind (an operator in the wrong directory once got a
 * new empty database with new secrets and an empty answer).
 */
async function withStore<T>(
  fn: (store: SystemStore, scoped: Store) => Promise<T>,
  opts: { create?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  const store = openStore(config, { existing: !opts.create });
  try {
    if (opts.create) await store.migrate();
    else {
      const ready = await store.isReady();
      if (!ready.ok) {
        const where = store.describe;
        throw new UsageError(
          ready.reason === 'migrations pending'
            ? `the store at ${where} is not migrated; run "healthspan migrate" first`
            : `the store at ${where} does not answer (${ready.reason ?? 'unavailable'}); check DATABASE_URL`,
        );
      }
    }
    return await fn(store.system, store);
  } finally {
    await store.close();
  }
}

/** `--mode`: which of an account's two data sets a command works on (docs/sandbox.md). */
const modeOption = (what: string) =>
  new Option('--mode <mode>', `live, or test for the ${what} of test mode`)
    .choices(API_MODES)
    .default('live');

async function createKey(
  store: SystemStore,
  partnerId: string,
  expiresIn: string | undefined,
  mode: ApiMode = 'live',
) {
  let expiresAt: Date | null = null;
  if (expiresIn !== undefined) {
    let ms: number;
    try {
      ms = parseDurationMs(expiresIn);
    } catch {
      throw new UsageError(`--expires-in must look like 90d, 12h, 30m or 45s, got "${expiresIn}"`);
    }
    if (ms <= 0) throw new UsageError('--expires-in must be longer than zero');
    expiresAt = new Date(systemClock().getTime() + ms);
  }
  const key = generateApiKey(mode);
  const stored = await store.accounts.insertKey(
    { partnerId, keyHash: key.hash, keyPrefix: key.displayPrefix, expiresAt, mode },
    ORIGIN,
  );
  return { keyId: stored.keyId, mode, apiKey: key.apiKey, expiresAt: stored.expiresAt };
}

async function withWebhooks<T>(fn: (admin: WebhookAdmin) => Promise<T>): Promise<T> {
  const config = loadConfig();
  return withStore((store) =>
    fn(
      new WebhookAdmin(store, secretBoxFor(config), {
        allowInsecure: config.webhookAllowInsecure,
        scheduleMs: config.webhookRetryScheduleMs,
        clock: systemClock,
        origin: ORIGIN,
      }),
    ),
  );
}

function durationOption(value: string, flag: string): number {
  try {
    return parseDurationMs(value);
  } catch {
    throw new UsageError(`${flag} must be a duration such as 0s, 30m, 24h or 7d, got "${value}"`);
  }
}

export function buildCli(): Command {
  const program = new Command('healthspan')
    .description('Operate healthspan: accounts, partner credentials, API keys and the server')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride();

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
      stopOnSignals(await startService(config, { logger, role: opts.role, clock: systemClock }), logger);
      await new Promise(() => {});
    });

  program
    .command('migrate')
    .description('Apply pending database migrations')
    .action(async () => {
      const store = openStore(loadConfig());
      try {
        print(await store.migrate());
      } finally {
        await store.close();
      }
    });

  const tenants = program.command('tenants').description('Accounts');
  tenants
    .command('list')
    .description('Every account: id, name, active, created')
    .action(async () => {
      print({ tenants: await withStore((s) => s.accounts.listTenants()) });
    });
  tenants
    .command('create')
    .description('Create an account')
    .requiredOption('--name <name>', 'account name')
    .action(async (opts: { name: string }) => {
      const tenant = await withStore((s) => s.accounts.createTenant(requireName(opts.name)));
      print({ tenantId: tenant.tenantId, name: tenant.name, active: tenant.active });
    });
  for (const [command, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    tenants
      .command(`${command} <tenantId>`)
      .description(active ? 'Allow the account’s keys again' : 'Refuse every key of the account (403)')
      .action(async (tenantId: string) => {
        const id = requireUuid(tenantId, 'TENANT_ID');
        const tenant = await withStore((s) => s.accounts.setTenantActive(id, active, ORIGIN));
        print({ tenantId: tenant.tenantId, active: tenant.active });
      });
  }

  tenants
    .command('set-retention <tenantId>')
    .description(
      "Erase the account's submissions this many days after receipt (0: keep until erased); --default follows RETENTION_DAYS",
    )
    .option('--days <n>', 'whole days, 0 to 36500')
    .option('--default', "follow the service's RETENTION_DAYS again")
    .action(async (tenantId: string, opts: { days?: string; default?: boolean }) => {
      const id = requireUuid(tenantId, 'TENANT_ID');
      if ((opts.days === undefined) === (opts.default !== true)) {
        throw new UsageError('give exactly one of --days <n> or --default');
      }
      let days: number | null = null;
      if (opts.days !== undefined) {
        days = Number(opts.days);
        if (!/^\d+$/.test(opts.days) || days > 36_500) {
          throw new UsageError('--days must be a whole number from 0 to 36500');
        }
      }
      print(await withStore((s) => s.accounts.setRetention(id, days)));
    });

  const subjects = program.command('subjects').description("A partner's subjects (de-identified references)");
  subjects
    .command('erase')
    .description('Erase everything stored about a subject in an account (as DELETE /v1/subjects/{id} does)')
    .requiredOption('--tenant <tenantId>', 'the account')
    .requiredOption('--subject <partnerSubjectId>', 'the partnerSubjectId its submissions carried')
    .addOption(modeOption('subject'))
    .action(async (opts: { tenant: string; subject: string; mode: ApiMode }) => {
      const tenantId = requireUuid(opts.tenant, '--tenant');
      if (opts.subject.length < 1 || opts.subject.length > 512) {
        throw new UsageError('--subject must be 1 to 512 characters');
      }
      print(
        await withStore(async (s, store) => {
          const scoped = await s.accounts.tenantForMode(tenantId, opts.mode);
          return store.forTenant(scoped).erasures.request(opts.subject, ORIGIN);
        }),
      );
    });

  const erasures = program.command('erasures').description('Erasures of subjects');
  erasures
    .command('show <erasureId>')
    .description('An erasure: its subject, status and what it removed')
    .action(async (erasureId: string) => {
      const id = requireUuid(erasureId, 'ERASURE_ID');
      const erasure = await withStore((s) => s.erasures.find(id));
      if (!erasure) throw new NotFoundError('erasure', id);
      print(erasure);
    });

  const audit = program.command('audit').description('The audit trail');
  audit
    .command('list')
    .description("An account's audit events, newest first")
    .requiredOption('--tenant <tenantId>', 'the account')
    .option('--since <time>', 'only events at or after this ISO-8601 time')
    .option('--action <action>', `only this action (${AUDIT_ACTIONS.join(', ')})`)
    .option('--limit <n>', 'events to show, 1 to 1000', '100')
    .addOption(modeOption('audit trail'))
    .action(
      async (opts: { tenant: string; since?: string; action?: string; limit: string; mode: ApiMode }) => {
        const tenantId = requireUuid(opts.tenant, '--tenant');
        const limit = Number(opts.limit);
        if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
          throw new UsageError('--limit must be a whole number from 1 to 1000');
        }
        const since = opts.since === undefined ? undefined : new Date(opts.since);
        if (since && Number.isNaN(since.getTime())) throw new UsageError('--since must be an ISO-8601 time');
        if (opts.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(opts.action)) {
          throw new UsageError(`--action must be one of ${AUDIT_ACTIONS.join(', ')}`);
        }
        const action = opts.action as AuditAction | undefined;
        const page = await withStore(async (s) => {
          const scoped = await s.accounts.tenantForMode(tenantId, opts.mode);
          return s.audit.list(scoped, { limit, since, action });
        });
        print({ tenantId, mode: opts.mode, events: page.items });
      },
    );

  const partners = program.command('partners').description('Partner credentials');
  partners
    .command('list')
    .description('Partner credentials, of one account with --tenant')
    .option('--tenant <tenantId>', 'only this account')
    .action(async (opts: { tenant?: string }) => {
      const tenantId = opts.tenant === undefined ? undefined : requireUuid(opts.tenant, '--tenant');
      print({ partners: await withStore((s) => s.accounts.listPartners(tenantId)) });
    });
  partners
    .command('create')
    .description('Create a partner credential in an account')
    .requiredOption('--tenant <tenantId>', 'owning account')
    .requiredOption('--name <name>', 'partner name')
    .action(async (opts: { tenant: string; name: string }) => {
      const tenantId = requireUuid(opts.tenant, '--tenant');
      const partner = await withStore((s) => s.accounts.createPartner(tenantId, requireName(opts.name)));
      print({ partnerId: partner.partnerId, tenantId: partner.tenantId, name: partner.name });
    });

  const keys = program.command('keys').description('API keys (shown once, stored as a hash)');
  keys
    .command('list')
    .description("A partner credential's keys: id, prefix, created, expires, revoked (never the key)")
    .requiredOption('--partner <partnerId>', 'partner credential')
    .action(async (opts: { partner: string }) => {
      const partnerId = requireUuid(opts.partner, '--partner');
      print({ partnerId, keys: await withStore((s) => s.accounts.listKeys(partnerId)) });
    });
  keys
    .command('create')
    .description('Issue a key for a partner credential; printed once, stored as a hash')
    .requiredOption('--partner <partnerId>', 'partner credential the key belongs to')
    .option('--expires-in <duration>', 'lifetime such as 90d or 12h (default: no expiry)')
    .addOption(
      new Option('--mode <mode>', 'live (hs_live_…), or test (hs_test_…: sees test data only)')
        .choices(API_MODES)
        .default('live'),
    )
    .action(async (opts: { partner: string; expiresIn?: string; mode: ApiMode }) => {
      const partnerId = requireUuid(opts.partner, '--partner');
      print(await withStore((s) => createKey(s, partnerId, opts.expiresIn, opts.mode)));
    });
  keys
    .command('revoke <keyId>')
    .description('Refuse a key from now on (401); revoking twice keeps the first time')
    .action(async (keyId: string) => {
      const id = requireUuid(keyId, 'KEY_ID');
      print(await withStore((s) => s.accounts.revokeKey(id, ORIGIN)));
    });

  const webhooks = program.command('webhooks').description('result.ready callbacks');
  webhooks
    .command('set')
    .description("Register (or change) the partner credential's callback URL; prints its signing secret")
    .requiredOption('--partner <partnerId>')
    .requiredOption('--url <url>')
    .option('--api-key <key>', 'key the receiver expects with each delivery')
    .option('--api-key-header <name>', 'header carrying --api-key (default X-Api-Key)')
    .addOption(modeOption('separate callback'))
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
  webhooks
    .command('show')
    .description(
      "A partner credential's callback: URL, receiver key header, signing secrets' ids and activation (never a secret)",
    )
    .requiredOption('--partner <partnerId>')
    .addOption(modeOption('callback'))
    .action(async (opts: { partner: string; mode: ApiMode }) => {
      const partnerId = requireUuid(opts.partner, '--partner');
      print(await withWebhooks((admin) => admin.show(partnerId, opts.mode)));
    });
  webhooks
    .command('rotate-secret')
    .description('Make a new signing secret that takes effect after --activate-in (default 24h)')
    .requiredOption('--partner <partnerId>')
    .option('--activate-in <duration>', 'for example 0s, 30m, 24h, 7d', '24h')
    .addOption(modeOption('callback'))
    .action(async (opts: { partner: string; activateIn: string; mode: ApiMode }) => {
      const partnerId = requireUuid(opts.partner, '--partner');
      const ms = durationOption(opts.activateIn, '--activate-in');
      print(await withWebhooks((admin) => admin.rotateSecret(partnerId, ms, opts.mode)));
    });
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
    .addOption(modeOption('callback'))
    .action(async (opts: { partner: string; limit: string; mode: ApiMode }) => {
      const partnerId = requireUuid(opts.partner, '--partner');
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw new UsageError('--limit must be a whole number from 1 to 1000');
      }
      print(await withWebhooks((admin) => admin.deliveries(partnerId, limit, opts.mode)));
    });

  program
    .command('quickstart')
    .description('Create an account, a partner credential and an API key in one step')
    .option('--name <name>', 'account and partner name', 'Quickstart')
    .action(async (opts: { name: string }) => {
      const name = requireName(opts.name);
      const out = await withStore(
        async (s) => {
          const tenant = await s.accounts.createTenant(name);
          const partner = await s.accounts.createPartner(tenant.tenantId, name);
          const key = await createKey(s, partner.partnerId, undefined);
          return {
            tenantId: tenant.tenantId,
            partnerId: partner.partnerId,
            keyId: key.keyId,
            apiKey: key.apiKey,
          };
        },
        { create: true },
      );
      print(out);
    });

  return program;
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildCli();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already written its message (or help) to stderr.
      return error.exitCode === 0 ? 0 : 1;
    }
    const message =
      error instanceof UsageError ||
      error instanceof NotFoundError ||
      error instanceof NoSandboxError ||
      error instanceof ConfigError ||
      error instanceof WebhookAdminError
        ? error.message
        : `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`healthspan: ${message}\n`);
    return 1;
  }
}
