import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from '../../src/cli/main.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startTestService, type TestService, tempDataDir, testStoreKind } from '../helpers/service.js';

/** What a new operator needs of the CLI (issue 13): it never opens the wrong store by accident. */
const NO_SUCH = '0190a7e0-0000-7000-8000-000000000000';
const PACKAGE_VERSION = (
  JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as {
    version: string;
  }
).version;

/** Every command that reads or changes a store without being allowed to create one. */
const STORE_COMMANDS: string[][] = [
  ['tenants', 'list'],
  ['tenants', 'create', '--name', 'x'],
  ['tenants', 'deactivate', NO_SUCH],
  ['partners', 'list'],
  ['partners', 'create', '--tenant', NO_SUCH, '--name', 'x'],
  ['keys', 'list', '--partner', NO_SUCH],
  ['keys', 'create', '--partner', NO_SUCH],
  ['keys', 'revoke', NO_SUCH],
  ['webhooks', 'show', '--partner', NO_SUCH],
  ['webhooks', 'deliveries', '--partner', NO_SUCH],
  ['webhooks', 'set', '--partner', NO_SUCH, '--url', 'https://hooks.example.com/h'],
  ['webhooks', 'rotate-secret', '--partner', NO_SUCH],
  ['webhooks', 'redeliver', '--result', NO_SUCH],
  ['console', 'link', '--partner', NO_SUCH],
];

describe('a command without a store', () => {
  // PostgreSQL: an empty database of its own (the connection works; nothing is migrated).
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (testStoreKind() === 'postgres') database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });
  /** The database URL with a password that must never be printed. */
  const urlWithPassword = (pathname?: string) => {
    const url = new URL(database!.url);
    url.password = 'pg-password-canary';
    if (pathname) url.pathname = pathname;
    return url;
  };

  // Each case has its own working directory and only reads: they run side by side (a child
  // process each, mostly waiting on its start), before the cases below that migrate.
  it.concurrent.each(STORE_COMMANDS.map((args) => [args.slice(0, 2).join(' '), args]))(
    '%s fails naming the store it looked for, and creates nothing',
    async (_name, args) => {
      const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-cwd-'));
      if (database) {
        const url = urlWithPassword();
        const res = await runCli({ DATA_DIR: 'data', DATABASE_URL: url.href }, args as string[], { cwd });
        expect(res.code).toBe(1);
        expect(res.stderr).toBe(
          `healthspan-admin: the store at postgresql://${url.hostname}:${url.port || '5432'}${url.pathname} is not migrated; run "healthspan-admin migrate" first\n`,
        );
      } else {
        const res = await runCli({ DATA_DIR: 'data', DATABASE_URL: '' }, args as string[], { cwd });
        const dir = path.join(fs.realpathSync(cwd), 'data');
        expect(res.code).toBe(1);
        expect(res.stdout).toBe('');
        expect(res.stderr).toBe(
          `healthspan-admin: no store at ${dir}/healthspan.sqlite (DATA_DIR=${dir}); run "healthspan-admin migrate" there to create one, or set DATA_DIR to the service's data directory\n`,
        );
      }
      expect(fs.readdirSync(cwd)).toEqual([]);
    },
  );

  it('fails on a data directory without a store, or a database that does not exist, without a password in the message', async () => {
    if (database) {
      const url = urlWithPassword(`${new URL(database.url).pathname}_missing`);
      const res = await runCli({ DATA_DIR: tempDataDir(), DATABASE_URL: url.href }, ['tenants', 'list']);
      expect(res.code).toBe(1);
      const missing = `${new URL(database.url).pathname.slice(1)}_missing`;
      expect(res.stderr).toBe(
        `healthspan-admin: DATABASE_URL (postgresql://${url.hostname}:${url.port || '5432'}/${missing}) names the database "${missing}", which does not exist on that server; create it (createdb -h ${url.hostname} -p ${url.port || '5432'} -U ${url.username} ${missing}) or correct the database name in DATABASE_URL.\n`,
      );
      expect(res.stderr).not.toContain('pg-password-canary');
    } else {
      const dir = tempDataDir();
      const res = await runCli({ DATA_DIR: dir, DATABASE_URL: '' }, ['tenants', 'list']);
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/^healthspan-admin: no store at /);
      expect(fs.readdirSync(dir)).toEqual([]);
    }
  });

  it('lets migrate create one; nothing before it had', async () => {
    const dataDir = path.join(tempDataDir(), 'new');
    const env = { DATA_DIR: dataDir, DATABASE_URL: database?.url ?? '' };
    expect((await runCli(env, ['tenants', 'list'])).code).toBe(1);
    const migrated = await runCli(env, ['migrate']);
    expect(migrated.code, migrated.stderr).toBe(0);
    expect((migrated.json!.applied as string[]).length).toBeGreaterThan(0);
    const listed = await runCli(env, ['tenants', 'list']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.json).toEqual({ tenants: [] });
  });
});

describe('an operator with a store', () => {
  let service: TestService;
  let env: Record<string, string>;
  const cli = (...args: string[]) => runCli(env, args);

  beforeAll(async () => {
    service = await startTestService({ WEBHOOK_ALLOW_INSECURE: 'false' });
    env = {
      DATA_DIR: service.config.dataDir,
      DATABASE_URL: service.config.databaseUrl ?? '',
      WEBHOOK_ALLOW_INSECURE: 'false',
    };
  });
  afterAll(async () => {
    await service.stop();
  });

  // Read-only refusals, independent of each other: side by side, before the cases that create.
  it.concurrent.each([
    ['tenant', ['tenants', 'deactivate', NO_SUCH]],
    ['tenant', ['tenants', 'activate', NO_SUCH]],
    ['tenant', ['partners', 'create', '--tenant', NO_SUCH, '--name', 'x']],
    ['tenant', ['partners', 'list', '--tenant', NO_SUCH]],
    ['partner', ['keys', 'create', '--partner', NO_SUCH]],
    ['partner', ['keys', 'list', '--partner', NO_SUCH]],
    ['API key', ['keys', 'revoke', NO_SUCH]],
    ['partner', ['webhooks', 'set', '--partner', NO_SUCH, '--url', 'https://hooks.example.com/h']],
    ['partner', ['webhooks', 'show', '--partner', NO_SUCH]],
    ['partner', ['webhooks', 'rotate-secret', '--partner', NO_SUCH]],
    ['partner', ['webhooks', 'deliveries', '--partner', NO_SUCH]],
    ['result', ['webhooks', 'redeliver', '--result', NO_SUCH]],
  ])('an unknown %s is exit 1 with one message form (%s)', async (kind, args) => {
    const res = await cli(...(args as string[]));
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toBe(`healthspan-admin: no ${kind} with id ${NO_SUCH}\n`);
  });

  it.concurrent.each([['31d'], ['soon']])(
    'refuses a rotation taking effect after %s, as the API and the console do (at most 30d)',
    async (activateIn) => {
      const res = await cli('webhooks', 'rotate-secret', '--partner', NO_SUCH, '--activate-in', activateIn);
      expect(res.code).toBe(1);
      expect(res.stderr).toBe(
        `healthspan-admin: --activate-in must be a duration such as 500ms, 30s, 5m, 24h or 7d, at most 30d, got "${activateIn}"\n`,
      );
    },
  );

  it('lists accounts, partner credentials, keys (never the key) and a callback (never a secret)', async () => {
    const quick = await cli('quickstart', '--name', 'Listing clinic');
    expect(quick.code, quick.stderr).toBe(0);
    const { tenantId, partnerId, keyId, apiKey } = quick.json as Record<string, string>;

    const tenants = await cli('tenants', 'list');
    expect(tenants.code).toBe(0);
    expect((tenants.json?.tenants as unknown[]) ?? []).toContainEqual({
      tenantId,
      name: 'Listing clinic',
      active: true,
      createdAt: expect.any(String),
    });
    const partners = await cli('partners', 'list', '--tenant', tenantId!);
    expect(partners.json).toEqual({
      partners: [{ partnerId, tenantId, name: 'Listing clinic', createdAt: expect.any(String) }],
    });
    expect(
      ((await cli('partners', 'list')).json!.partners as Array<{ partnerId: string }>).map(
        (p) => p.partnerId,
      ),
    ).toContain(partnerId);

    const second = await cli('keys', 'create', '--partner', partnerId!, '--expires-in', '30d');
    expect((await cli('keys', 'revoke', keyId!)).code).toBe(0);
    const keys = await cli('keys', 'list', '--partner', partnerId!);
    expect(keys.code).toBe(0);
    expect(keys.json).toEqual({
      partnerId,
      keys: [
        {
          keyId,
          mode: 'live',
          prefix: apiKey!.slice(0, (keys.json!.keys as Array<{ prefix: string }>)[0]!.prefix.length),
          createdAt: expect.any(String),
          expiresAt: null,
          revokedAt: expect.any(String),
        },
        {
          keyId: second.json?.keyId,
          mode: 'live',
          prefix: expect.stringMatching(/^hs_live_/),
          createdAt: expect.any(String),
          expiresAt: second.json?.expiresAt,
          revokedAt: null,
        },
      ],
    });
    expect(keys.stdout).not.toContain(apiKey);
    expect(keys.stdout).not.toContain(String(second.json?.apiKey));

    expect((await cli('webhooks', 'show', '--partner', partnerId!)).json).toEqual({
      partnerId,
      mode: 'live',
      url: null,
      receiverKey: null,
      signingSecrets: [],
    });
    const set = await cli(
      'webhooks',
      'set',
      '--partner',
      partnerId!,
      '--url',
      'https://93.184.215.14/hooks',
      '--api-key',
      'receiver-key-canary',
    );
    expect(set.code, set.stderr).toBe(0);
    const shown = await cli('webhooks', 'show', '--partner', partnerId!);
    expect(shown.json).toEqual({
      partnerId,
      mode: 'live',
      url: 'https://93.184.215.14/hooks',
      receiverKey: { header: 'X-Api-Key' },
      signingSecrets: [{ secretId: expect.any(String), activatesAt: expect.any(String), active: true }],
      // What GET /v1/webhook-endpoint shows too (one service).
      status: 'enabled',
      disabledAt: null,
      disabledReason: null,
      last24Hours: { delivered: 0, failed: 0 },
    });
    expect(shown.stdout).not.toContain(String(set.json?.signingSecret));
    expect(shown.stdout).not.toContain('receiver-key-canary');
  });

  it('refuses an http:// callback with a hint about WEBHOOK_ALLOW_INSECURE', async () => {
    const quick = await cli('quickstart');
    const res = await cli(
      'webhooks',
      'set',
      '--partner',
      String(quick.json?.partnerId),
      '--url',
      'http://hooks.example.com/h',
    );
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/https:\/\//);
    expect(res.stderr).toMatch(/WEBHOOK_ALLOW_INSECURE=true/);
  });

  it('prints its version', async () => {
    for (const flag of ['--version', '-V']) {
      const res = await runCli(env, [flag]);
      expect(res.code).toBe(0);
      expect(res.stdout.trim()).toBe(PACKAGE_VERSION);
    }
  });
});

describe('help', () => {
  it('describes every command', async () => {
    const missing: string[] = [];
    const visit = (command: ReturnType<typeof buildCli>, prefix: string) => {
      for (const sub of command.commands) {
        const name = `${prefix} ${sub.name()}`.trim();
        if (sub.description().trim() === '') missing.push(name);
        visit(sub, name);
      }
    };
    visit(buildCli(), '');
    expect(missing).toEqual([]);
    const help = await runCli({}, ['--help']);
    expect(help.code).toBe(0);
    for (const group of [
      'serve',
      'migrate',
      'tenants',
      'partners',
      'keys',
      'webhooks',
      'console',
      'quickstart',
    ]) {
      expect(help.stdout).toMatch(new RegExp(`^  ${group}\\b.*\\S`, 'm'));
    }
  });
});
