import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorOrigin } from '../../src/store/repositories/accounts.js';
import { SkewedClock } from '../helpers/clock.js';
import { createAccount, errorOf, startTestService, type TestService } from '../helpers/service.js';

let service: TestService;
/**
 * The API key cache's clock: the real time, moved on by the test past the cache's epoch check
 * (1 s) when it needs a change made "in another process" to be seen, instead of sleeping.
 */
const authClock = new SkewedClock();
const EPOCH_CHECK_MS = 1_000;

beforeAll(async () => {
  service = await startTestService({}, 'all', { clock: authClock.date });
});
afterAll(async () => {
  await service.stop();
});

async function probe(headers: Record<string, string>) {
  const res = await fetch(`${service.url}/v1/partner-auth-probe`, { headers });
  const text = await res.text();
  return { status: res.status, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : {}, res };
}

describe('authentication', () => {
  it('accepts the key in X-Api-Key with 204 and an empty body', async () => {
    const account = await createAccount(service);
    const res = await probe({ 'x-api-key': account.apiKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
  });

  it('accepts the key as Authorization: Bearer', async () => {
    const account = await createAccount(service);
    const res = await probe({ authorization: `Bearer ${account.apiKey}` });
    expect(res.status).toBe(204);
  });

  const ACCEPTED = 'in the X-Api-Key header, or as Authorization: Bearer <key>.';
  const NOT_SENT = `No API key was sent. Send your key ${ACCEPTED}`;
  const NO_BEARER =
    'The Authorization header carries no API key. Send Authorization: Bearer <key>, or the key in the X-Api-Key header.';
  const refused = (where: string) =>
    `The API key sent in ${where} is not accepted: it is mistyped, revoked or expired. Send a current key ${ACCEPTED}`;

  // The message says whether a key was sent and which headers are accepted, never which of
  // unknown, revoked or expired a key is (the revoked and expired cases below say the same).
  it.each([
    ['no key at all', {}, NOT_SENT],
    ['an empty X-Api-Key', { 'x-api-key': '' }, NOT_SENT],
    ['a malformed key', { 'x-api-key': 'not-a-key' }, refused('the X-Api-Key header')],
    [
      'a well-formed unknown key',
      { 'x-api-key': `hs_live_${'A'.repeat(43)}` },
      refused('the X-Api-Key header'),
    ],
    [
      'an unknown bearer key',
      { authorization: `Bearer hs_live_${'B'.repeat(43)}` },
      refused('Authorization: Bearer'),
    ],
    ['a Basic authorization header', { authorization: 'Basic dXNlcjpwYXNz' }, NO_BEARER],
    ['an empty bearer token', { authorization: 'Bearer ' }, NO_BEARER],
  ])(
    'rejects %s with 401 INVALID_API_KEY, saying what was sent and how to send a key',
    async (_name, headers, message) => {
      const res = await probe({ ...headers, 'x-request-id': 'rid-auth' });
      expect(res.status).toBe(401);
      const error = errorOf(res.json);
      expect(error.code).toBe('INVALID_API_KEY');
      expect(error.message).toBe(message);
      expect(error.requestId).toBe('rid-auth');
    },
  );

  it('rejects a revoked key, including one that was cached moments before', async () => {
    const account = await createAccount(service);
    expect((await probe({ 'x-api-key': account.apiKey })).status).toBe(204);
    await service.store.system.accounts.revokeKey(account.keyId, operatorOrigin('test'));
    // Another process revoking is seen within the epoch check interval.
    authClock.advance(EPOCH_CHECK_MS);
    const res = await probe({ 'x-api-key': account.apiKey });
    expect(res.status).toBe(401);
    expect(errorOf(res.json).message).toBe(refused('the X-Api-Key header'));
  });

  it('rejects an expired key', async () => {
    const account = await createAccount(service, { expiresAt: new Date(Date.now() - 1000) });
    const res = await probe({ authorization: `Bearer ${account.apiKey}` });
    expect(res.status).toBe(401);
    expect(errorOf(res.json).code).toBe('INVALID_API_KEY');
    expect(errorOf(res.json).message).toBe(refused('Authorization: Bearer'));
  });

  it('accepts a key until its expiry', async () => {
    const account = await createAccount(service, { expiresAt: new Date(Date.now() + 3_600_000) });
    expect((await probe({ 'x-api-key': account.apiKey })).status).toBe(204);
  });

  it('answers 403 ACCOUNT_INACTIVE for an inactive tenant and 204 again once reactivated', async () => {
    const account = await createAccount(service);
    expect((await probe({ 'x-api-key': account.apiKey })).status).toBe(204);
    await service.store.system.accounts.setTenantActive(account.tenantId, false, operatorOrigin('test'));
    authClock.advance(EPOCH_CHECK_MS);
    const res = await probe({ 'x-api-key': account.apiKey });
    expect(res.status).toBe(403);
    expect(errorOf(res.json).code).toBe('ACCOUNT_INACTIVE');
    await service.store.system.accounts.setTenantActive(account.tenantId, true, operatorOrigin('test'));
    authClock.advance(EPOCH_CHECK_MS);
    expect((await probe({ 'x-api-key': account.apiKey })).status).toBe(204);
  });

  it('never writes the API key into the logs', async () => {
    const account = await createAccount(service);
    await probe({ 'x-api-key': account.apiKey });
    await probe({ authorization: `Bearer ${account.apiKey}` });
    const logs = service.logs.join('');
    expect(logs).toContain('"route":"/v1/partner-auth-probe"');
    expect(logs).not.toContain(account.apiKey);
  });

  it('requires a key on every /v1 route of the route table but the signed download', async () => {
    // From the server's own table, so a route added without authentication fails here.
    const keyless = new Set([
      'GET /v1/artifacts/:artifactId/content',
      'HEAD /v1/artifacts/:artifactId/content',
    ]);
    const routes = service.app.routeTable.filter((r) => r.url.startsWith('/v1/') && r.method !== 'OPTIONS');
    expect(routes.length).toBeGreaterThanOrEqual(4);
    // The self-service routes (issue 30) are in the table, so they are checked below.
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining([
        'GET /v1/submissions',
        'GET /v1/webhook-endpoint',
        'PUT /v1/webhook-endpoint',
        'DELETE /v1/webhook-endpoint',
        'POST /v1/webhook-endpoint/rotate-secret',
        'POST /v1/webhook-endpoint/enable',
        'GET /v1/events',
        'GET /v1/events/:eventId',
        'POST /v1/events/:eventId/redeliver',
        'POST /v1/events/recover',
        'GET /v1/recoveries/:recoveryId',
      ]),
    );
    for (const route of routes) {
      const name = `${route.method} ${route.url}`;
      const path = route.url.replace(/:[A-Za-z]+/g, '0190a7e0-0000-7000-8000-000000000000');
      const res = await fetch(`${service.url}${path}`, {
        method: route.method,
        ...(route.method === 'POST' || route.method === 'PUT'
          ? { headers: { 'content-type': 'application/json' }, body: '{}' }
          : {}),
      });
      if (keyless.has(name)) {
        expect(res.status, name).toBe(403);
        continue;
      }
      expect(res.status, name).toBe(401);
      if (route.method !== 'HEAD') {
        expect(errorOf((await res.json()) as Record<string, unknown>).code, name).toBe('INVALID_API_KEY');
      }
    }
  });
});
