import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import type { DisabledEndpoint } from '../../src/store/repositories/endpoint-health.js';
import { openTestStore } from '../helpers/store.js';

/**
 * The failure clock of an endpoint (Svix's rule, docs/webhooks.md): it starts at the first failed
 * attempt, a delivered one stops it, and the endpoint is disabled once every attempt has failed
 * for WEBHOOK_DISABLE_AFTER and for at least 12 hours.
 */

const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T08:00:00.000Z');
const at = (hours: number) => new Date(T0 + hours * HOUR);

let store: Store;
let partnerId: string;

beforeEach(async () => {
  store = await openTestStore();
  const tenantId = (await store.system.accounts.createTenant('T')).tenantId;
  partnerId = (await store.system.accounts.createPartner(tenantId, 'P')).partnerId;
  await store.system.batcher.submit((trx) =>
    store.system.webhooks.upsertEndpoint(
      trx,
      { partnerId, tenantId, url: 'https://hooks.example.com/h', apiKeySealed: null, apiKeyHeader: null },
      at(0),
    ),
  );
});
afterEach(() => store.close());

const failed = (hours: number, disableAfterMs: number) =>
  store.system.batcher.submit((trx) =>
    store.system.endpointHealth.failed(trx, partnerId, at(hours), disableAfterMs),
  ) as Promise<DisabledEndpoint | undefined>;
const delivered = () =>
  store.system.batcher.submit((trx) => store.system.endpointHealth.delivered(trx, partnerId));
const row = () =>
  store.driver.db
    .selectFrom('webhook_endpoints')
    .select(['status', 'failing_since', 'disabled_at', 'disabled_reason'])
    .where('partner_id', '=', partnerId)
    .executeTakeFirstOrThrow();
const failingSince = async () => {
  const value = (await row()).failing_since;
  return value === null ? null : new Date(value).toISOString();
};

describe('the endpoint failure clock', () => {
  it('starts at the first failure, keeps it through later ones, and stops at a delivery', async () => {
    expect(await failed(0, 5 * 24 * HOUR)).toBeUndefined();
    expect(await failed(3, 5 * 24 * HOUR)).toBeUndefined();
    expect(await failingSince()).toBe(at(0).toISOString());
    await delivered();
    expect(await failingSince()).toBeNull();
    await failed(30, 5 * 24 * HOUR);
    expect(await failingSince()).toBe(at(30).toISOString());
  });

  it('disables once every attempt failed for WEBHOOK_DISABLE_AFTER, not before', async () => {
    await failed(0, 24 * HOUR);
    expect(await failed(23.9, 24 * HOUR)).toBeUndefined();
    const disabled = await failed(24, 24 * HOUR);
    expect(disabled).toMatchObject({ partnerId, failingSince: at(0).toISOString() });
    expect(await row()).toMatchObject({ status: 'disabled', disabled_reason: disabled?.reason });
    expect(new Date((await row()).disabled_at ?? 0).toISOString()).toBe(at(24).toISOString());
    // Already disabled: a later failure (a delivery in flight) disables nothing again.
    expect(await failed(25, 24 * HOUR)).toBeUndefined();
  });

  it('needs failures spanning 12 hours, however short WEBHOOK_DISABLE_AFTER is', async () => {
    await failed(0, HOUR);
    expect(await failed(2, HOUR)).toBeUndefined();
    expect(await failed(11.9, HOUR)).toBeUndefined();
    expect(await failed(12, HOUR)).toBeDefined();
  });

  it('counts endpoints by mode and status for the gauge', async () => {
    expect(await store.system.endpointHealth.countsByStatus()).toEqual([
      { mode: 'live', status: 'enabled', count: 1 },
    ]);
    await failed(0, HOUR);
    await failed(12, HOUR);
    expect(await store.system.endpointHealth.countsByStatus()).toEqual([
      { mode: 'live', status: 'disabled', count: 1 },
    ]);
  });
});
