import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor } from '../helpers/cli.js';
import { TestReceiver } from '../helpers/receiver.js';
import {
  createAccount,
  errorOf,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers/service.js';

/**
 * `/v1/webhook-endpoint` (issue 30): a partner manages its own callback with its key, through
 * the service the operator's `webhooks` commands call too; each mode has its own endpoint, and
 * another account's endpoint is never reached.
 */

type Json = Record<string, unknown>;

async function call(
  service: TestService,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${service.url}/v1/webhook-endpoint${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Json) : {} };
}

async function auditActions(service: TestService, account: TestAccount): Promise<string[]> {
  const res = await fetch(`${service.url}/v1/audit-events?limit=100`, {
    headers: { 'x-api-key': account.apiKey },
  });
  const json = (await res.json()) as { items: Array<{ action: string; resourceType: string }> };
  return json.items.filter((i) => i.resourceType === 'webhook_endpoint').map((i) => i.action);
}

describe('the callback endpoint, managed with the partner’s key', () => {
  const receiver = new TestReceiver();
  let url = '';
  let service: TestService;

  beforeAll(async () => {
    url = await receiver.start();
    service = await startTestService({ WEBHOOK_ALLOW_INSECURE: 'true', RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(async () => {
    await service.stop();
    await receiver.stop();
  });

  it('registers, shows, moves, rotates and deletes the endpoint; every step audited', async () => {
    const account = await createAccount(service);
    const none = await call(service, account.apiKey, 'GET', '');
    expect(none.status).toBe(404);
    expect(errorOf(none.json).code).toBe('NOT_FOUND');
    expect(errorOf(none.json).message).toContain('PUT /v1/webhook-endpoint');

    const created = await call(service, account.apiKey, 'PUT', '', {
      url,
      receiverKey: { header: 'Authorization', value: 'rk_receiver_1' },
    });
    expect(created.status).toBe(200);
    expect(created.json).toMatchObject({
      mode: 'live',
      url,
      status: 'enabled',
      disabledAt: null,
      receiverKey: { header: 'Authorization' },
      signingSecret: expect.stringMatching(/^whsec_/),
      last24Hours: { delivered: 0, failed: 0 },
    });
    const secrets = created.json.signingSecrets as Array<{ secretId: string; active: boolean }>;
    expect(secrets).toEqual([expect.objectContaining({ active: true })]);

    const shown = await call(service, account.apiKey, 'GET', '');
    expect(shown.status).toBe(200);
    expect(shown.json.signingSecret).toBeUndefined();
    expect(JSON.stringify(shown.json)).not.toContain('rk_receiver_1');
    expect(JSON.stringify(shown.json)).not.toContain(created.json.signingSecret as string);

    // A new URL keeps the secret the receiver has: none is answered.
    const moved = await call(service, account.apiKey, 'PUT', '', { url: `${url}/v2` });
    expect(moved.status).toBe(200);
    expect(moved.json).toMatchObject({ url: `${url}/v2`, receiverKey: null, signingSecrets: secrets });
    expect(moved.json.signingSecret).toBeUndefined();

    const rotated = await call(service, account.apiKey, 'POST', '/rotate-secret', { activateIn: '1h' });
    expect(rotated.status).toBe(200);
    expect(rotated.json).toEqual({
      signingSecret: expect.stringMatching(/^whsec_/),
      activatesAt: expect.any(String),
    });
    const after = await call(service, account.apiKey, 'GET', '');
    expect(after.json.signingSecrets).toHaveLength(2);
    expect((after.json.signingSecrets as Array<{ active: boolean }>).map((s) => s.active)).toEqual([
      false,
      true,
    ]);

    // The operator's command reads the same endpoint through the same service.
    const cli = await cliFor(service, ['webhooks', 'show', '--partner', account.partnerId]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.json).toMatchObject({
      url: `${url}/v2`,
      status: 'enabled',
      signingSecrets: after.json.signingSecrets,
    });

    const deleted = await call(service, account.apiKey, 'DELETE', '');
    expect(deleted.status).toBe(204);
    expect((await call(service, account.apiKey, 'GET', '')).status).toBe(404);
    expect((await call(service, account.apiKey, 'DELETE', '')).status).toBe(404);
    expect((await call(service, account.apiKey, 'POST', '/enable')).status).toBe(404);
    expect((await call(service, account.apiKey, 'POST', '/rotate-secret', {})).status).toBe(404);

    // Registered again: a new endpoint with a new secret.
    const again = await call(service, account.apiKey, 'PUT', '', { url });
    expect(again.json.signingSecret).toEqual(expect.stringMatching(/^whsec_/));
    expect(again.json.signingSecret).not.toBe(created.json.signingSecret);

    expect((await auditActions(service, account)).reverse()).toEqual([
      'webhook.endpoint_set',
      'webhook.endpoint_read',
      'webhook.endpoint_set',
      'webhook.secret_rotated',
      'webhook.endpoint_read',
      'webhook.endpoint_read',
      'webhook.endpoint_deleted',
      'webhook.endpoint_set',
    ]);
  });

  it('enables a disabled endpoint with POST …/enable or a PUT of the same URL', async () => {
    const account = await createAccount(service);
    await call(service, account.apiKey, 'PUT', '', { url });
    const disable = () =>
      service.store.driver.db
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', disabled_at: new Date().toISOString(), disabled_reason: 'test' })
        .where('partner_id', '=', account.partnerId)
        .execute();
    await disable();
    expect((await call(service, account.apiKey, 'GET', '')).json).toMatchObject({
      status: 'disabled',
      disabledReason: 'test',
      disabledAt: expect.any(String),
    });
    const enabled = await call(service, account.apiKey, 'POST', '/enable');
    expect(enabled.status).toBe(200);
    expect(enabled.json).toMatchObject({ status: 'enabled', disabledAt: null, disabledReason: null });
    await disable();
    const put = await call(service, account.apiKey, 'PUT', '', { url });
    expect(put.json).toMatchObject({ status: 'enabled', disabledAt: null });
    expect(put.json.signingSecret).toBeUndefined();
    const actions = await auditActions(service, account);
    expect(actions.filter((a) => a === 'webhook.endpoint_enabled')).toHaveLength(2);
  });

  it('keeps each mode’s endpoint apart, and another account’s out of reach', async () => {
    const account = await createAccount(service);
    const made = await cliFor(service, ['keys', 'create', '--partner', account.partnerId, '--mode', 'test']);
    expect(made.code, made.stderr).toBe(0);
    const testKey = made.json!.apiKey as string;
    const other = await createAccount(service);

    await call(service, account.apiKey, 'PUT', '', { url });
    expect((await call(service, testKey, 'GET', '')).status).toBe(404);
    const testSet = await call(service, testKey, 'PUT', '', { url: `${url}/test` });
    expect(testSet.json).toMatchObject({
      mode: 'test',
      url: `${url}/test`,
      signingSecret: expect.any(String),
    });
    expect((await call(service, account.apiKey, 'GET', '')).json).toMatchObject({ mode: 'live', url });
    expect((await call(service, other.apiKey, 'GET', '')).status).toBe(404);

    // The test key deletes the test endpoint only.
    expect((await call(service, testKey, 'DELETE', '')).status).toBe(204);
    expect((await call(service, account.apiKey, 'GET', '')).status).toBe(200);
    expect((await call(service, other.apiKey, 'DELETE', '')).status).toBe(404);
  });

  it('answers 400 VALIDATION_ERROR naming the field for a body it cannot use', async () => {
    const account = await createAccount(service);
    const cases: Array<[string, string, unknown, string]> = [
      ['PUT', '', { url: 'not a url' }, 'url'],
      ['PUT', '', {}, 'url'],
      ['PUT', '', { url, extra: 1 }, 'extra'],
      ['PUT', '', { url, receiverKey: { header: 'Content-Type', value: 'k' } }, 'receiverKey.header'],
      ['PUT', '', { url, receiverKey: { value: 'with space' } }, 'receiverKey.value'],
      ['PUT', '', { url: 'ftp://example.com/x' }, 'url'],
    ];
    for (const [method, path, body, field] of cases) {
      const res = await call(service, account.apiKey, method, path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = errorOf(res.json);
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(Object.keys((error.details as { fieldErrors: Json }).fieldErrors)).toEqual([field]);
    }
    await call(service, account.apiKey, 'PUT', '', { url });
    // The API reads the settings' and the CLI's duration grammar, milliseconds included.
    const before = Date.now();
    const soon = await call(service, account.apiKey, 'POST', '/rotate-secret', { activateIn: '1500ms' });
    const after = Date.now();
    expect(soon.status).toBe(200);
    const activatesAt = Date.parse(String(soon.json.activatesAt));
    expect(activatesAt).toBeGreaterThanOrEqual(before + 1500 - 1);
    expect(activatesAt).toBeLessThanOrEqual(after + 1500);
    for (const activateIn of ['soon', '31d', '-1h', '1w']) {
      const res = await call(service, account.apiKey, 'POST', '/rotate-secret', { activateIn });
      expect(res.status, activateIn).toBe(400);
      expect((errorOf(res.json).details as { fieldErrors: Json }).fieldErrors).toHaveProperty('activateIn');
    }
  });
});

describe('the callback target guard on PUT', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' });
  });
  afterAll(() => service.stop());

  it('refuses http:// and loopback or private targets without WEBHOOK_ALLOW_INSECURE', async () => {
    const account = await createAccount(service);
    for (const [target, says] of [
      ['http://hooks.example.com/h', 'https://'],
      ['https://127.0.0.1/h', '127.0.0.1'],
      ['https://10.1.2.3/h', '10.1.2.3'],
    ] as const) {
      const res = await call(service, account.apiKey, 'PUT', '', { url: target });
      expect(res.status, target).toBe(400);
      const [message] =
        (errorOf(res.json).details as { fieldErrors: Record<string, string[]> }).fieldErrors.url ?? [];
      expect(message).toContain(says);
      // Operator settings are not the partner's to change: no hint to switch them.
      expect(message).not.toContain('WEBHOOK_ALLOW_INSECURE');
    }
    expect((await call(service, account.apiKey, 'GET', '')).status).toBe(404);
  });

  it('points a receiver on this machine or a private network to healthspan listen, and only those', async () => {
    const account = await createAccount(service);
    const LISTEN = 'run npx healthspan listen --forward-to';
    for (const [target, forward] of [
      ['http://localhost:3000/webhooks', 'http://localhost:3000/webhooks'],
      ['https://127.0.0.1/h', 'https://127.0.0.1/h'],
      ['http://user:pw@192.168.1.20:8000/in?x=1', 'http://192.168.1.20:8000/in'],
    ] as const) {
      const res = await call(service, account.apiKey, 'PUT', '', { url: target });
      expect(res.status, target).toBe(400);
      const [message] =
        (errorOf(res.json).details as { fieldErrors: Record<string, string[]> }).fieldErrors.url ?? [];
      expect(message, target).toContain(`${LISTEN} ${forward} with a test key (from @healthspan/client)`);
      expect(message, target).not.toContain('pw@');
    }
    const remote = await call(service, account.apiKey, 'PUT', '', { url: 'http://hooks.example.com/h' });
    expect(JSON.stringify(remote.json)).not.toContain('healthspan listen');
  });
});
