import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, errorOf, getJson, startTestService, type TestService } from '../helpers/service.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
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

  it.each([
    ['no key at all', {}],
    ['an empty X-Api-Key', { 'x-api-key': '' }],
    ['a malformed key', { 'x-api-key': 'not-a-key' }],
    ['a well-formed unknown key', { 'x-api-key': `hs_live_${'A'.repeat(43)}` }],
    ['a Basic authorization header', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer token', { authorization: 'Bearer ' }],
  ])('rejects %s with 401 INVALID_API_KEY', async (_name, headers) => {
    const res = await probe({ ...headers, 'x-request-id': 'rid-auth' });
    expect(res.status).toBe(401);
    const error = errorOf(res.json);
    expect(error.code).toBe('INVALID_API_KEY');
    expect(error.requestId).toBe('rid-auth');
  });

  it('rejects a revoked key, including one that was cached moments before', async () => {
    const account = await createAccount(service);
    expect((await probe({ 'x-api-key': account.apiKey })).status).toBe(204);
    await service.store.accounts.revokeKey(account.keyId);
    // Another process revoking is seen within the epoch check interval (1 s).
    const deadline = Date.now() + 5_000;
    let status = 204;
    while (Date.now() < deadline) {
      status = (await probe({ 'x-api-key': account.apiKey })).status;
      if (status === 401) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(status).toBe(401);
  });

  it('rejects an expired key', async () => {
    const account = await createAccount(service, { expiresAt: new Date(Date.now() - 1000) });
    const res = await probe({ 'x-api-key': account.apiKey });
    expect(res.status).toBe(401);
    expect(errorOf(res.json).code).toBe('INVALID_API_KEY');
  });

  it('accepts a key until its expiry', async () => {
    const account = await createAccount(service, { expiresAt: new Date(Date.now() + 3_600_000) });
    expect((await probe({ 'x-api-key': account.apiKey })).status).toBe(204);
  });

  it('answers 403 ACCOUNT_INACTIVE for an inactive tenant and 204 again once reactivated', async () => {
    const account = await createAccount(service);
    await service.store.accounts.setTenantActive(account.tenantId, false);
    await new Promise((r) => setTimeout(r, 1_100));
    const res = await probe({ 'x-api-key': account.apiKey });
    expect(res.status).toBe(403);
    expect(errorOf(res.json).code).toBe('ACCOUNT_INACTIVE');
    await service.store.accounts.setTenantActive(account.tenantId, true);
    await new Promise((r) => setTimeout(r, 1_100));
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

  it('requires a key on every /v1 route', async () => {
    for (const path of ['/v1/submissions/0190a7e0-0000-7000-8000-000000000000', '/v1/partner-auth-probe']) {
      const res = await getJson(service, path);
      expect(res.status).toBe(401);
    }
  });
});
