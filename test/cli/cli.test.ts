import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { runCli } from '../helpers/cli.js';
import { SkewedClock } from '../helpers/clock.js';
import { createTestDatabase } from '../helpers/database.js';
import { startTestService, type TestService, tempDataDir, testStoreKind } from '../helpers/service.js';

// The service under test's store: its data directory, and its PostgreSQL database if it has one.
let databaseUrl = '';
/**
 * The service's API key cache clock: moved past the cache's epoch check (1 s) for a change the
 * CLI made to be seen, instead of sleeping through it.
 */
const authClock = new SkewedClock();
const EPOCH_CHECK_MS = 1_000;

async function cli(dataDir: string, ...args: string[]) {
  return await runCli({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl }, args);
}

describe('healthspan CLI', () => {
  let dataDir: string;
  let service: TestService;

  beforeAll(async () => {
    dataDir = tempDataDir();
    service = await startTestService({ DATA_DIR: dataDir }, 'all', { clock: authClock.date });
    databaseUrl = service.config.databaseUrl ?? '';
  });
  afterAll(async () => {
    await service.stop();
  });

  it('creates a tenant, partner and key whose key works against the running server', async () => {
    const tenant = await cli(dataDir, 'tenants', 'create', '--name', 'Clinic One');
    expect(tenant.code).toBe(0);
    expect(tenant.lines).toHaveLength(1);
    expect(tenant.json).toEqual({ tenantId: expect.any(String), name: 'Clinic One', active: true });

    const partner = await cli(
      dataDir,
      'partners',
      'create',
      '--tenant',
      String(tenant.json!.tenantId),
      '--name',
      'Clinic app',
    );
    expect(partner.code).toBe(0);
    expect(partner.json).toEqual({
      partnerId: expect.any(String),
      tenantId: tenant.json!.tenantId,
      name: 'Clinic app',
    });

    const key = await cli(
      dataDir,
      'keys',
      'create',
      '--partner',
      String(partner.json!.partnerId),
      '--expires-in',
      '90d',
    );
    expect(key.code).toBe(0);
    expect(Object.keys(key.json!).sort()).toEqual(['apiKey', 'expiresAt', 'keyId', 'mode']);
    expect(String(key.json!.apiKey)).toMatch(/^hs_live_[A-Za-z0-9_-]{43}$/);
    const days = (Date.parse(String(key.json!.expiresAt)) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89.9);
    expect(days).toBeLessThan(90.1);

    const probe = await fetch(`${service.url}/v1/partner-auth-probe`, {
      headers: { 'x-api-key': String(key.json!.apiKey) },
    });
    expect(probe.status).toBe(204);

    // Only a hash is stored.
    const rows = await service.store.driver.db.selectFrom('api_keys').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(String(key.json!.apiKey));

    const revoked = await cli(dataDir, 'keys', 'revoke', String(key.json!.keyId));
    expect(revoked.code).toBe(0);
    expect(revoked.json).toEqual({ keyId: key.json!.keyId, revokedAt: expect.any(String) });
    authClock.advance(EPOCH_CHECK_MS);
    const after = await fetch(`${service.url}/v1/partner-auth-probe`, {
      headers: { 'x-api-key': String(key.json!.apiKey) },
    });
    expect(after.status).toBe(401);
  });

  it('deactivates and activates a tenant', async () => {
    const quick = await cli(dataDir, 'quickstart', '--name', 'Deactivation test');
    const tenantId = String(quick.json!.tenantId);
    const off = await cli(dataDir, 'tenants', 'deactivate', tenantId);
    expect(off.code).toBe(0);
    expect(off.json).toEqual({ tenantId, active: false });
    authClock.advance(EPOCH_CHECK_MS);
    const probe = await fetch(`${service.url}/v1/partner-auth-probe`, {
      headers: { 'x-api-key': String(quick.json!.apiKey) },
    });
    expect(probe.status).toBe(403);
    const on = await cli(dataDir, 'tenants', 'activate', tenantId);
    expect(on.json).toEqual({ tenantId, active: true });
  });

  it('quickstart prints exactly tenantId, partnerId, keyId and apiKey', async () => {
    const quick = await cli(dataDir, 'quickstart');
    expect(quick.code).toBe(0);
    expect(Object.keys(quick.json!).sort()).toEqual(['apiKey', 'keyId', 'partnerId', 'tenantId']);
  });

  it('works on a fresh data directory without a running server', async () => {
    const fresh = tempDataDir();
    const quick = await cli(fresh, 'quickstart', '--name', 'Fresh');
    expect(quick.code).toBe(0);
    expect(quick.json!.apiKey).toMatch(/^hs_live_/);
  });

  it('migrate applies every migration to an empty database, once', async () => {
    const database = testStoreKind() === 'postgres' ? await createTestDatabase() : undefined;
    try {
      const env = { DATA_DIR: tempDataDir(), DATABASE_URL: database?.url ?? '', MIGRATE_ON_START: 'false' };
      const first = await runCli(env, ['migrate']);
      expect(first.code).toBe(0);
      expect(first.json).toEqual({ applied: Object.keys(MIGRATIONS) });
      expect((await runCli(env, ['migrate'])).json).toEqual({ applied: [] });
    } finally {
      await database?.drop();
    }
  });

  it.each([
    [
      'an unknown tenant',
      ['partners', 'create', '--tenant', '0190a7e0-0000-7000-8000-000000000000', '--name', 'x'],
    ],
    ['a non-UUID id', ['keys', 'revoke', 'abc']],
    ['a missing required option', ['tenants', 'create']],
    [
      'a bad duration',
      ['keys', 'create', '--partner', '0190a7e0-0000-7000-8000-000000000000', '--expires-in', 'soon'],
    ],
    ['an unknown command', ['frobnicate']],
    [
      'a webhook command before webhooks exist',
      ['webhooks', 'set', '--partner', 'p', '--url', 'https://example.com'],
    ],
  ])('fails with a message on stderr and a non-zero exit for %s', async (_name, args) => {
    const res = await cli(dataDir, ...args);
    expect(res.code).not.toBe(0);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(/\w+/);
  });
});
