import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor } from '../helpers/cli.js';
import { SkewedClock } from '../helpers/clock.js';
import { retryDue as retryDueOn } from '../helpers/delivery.js';
import { completeSubmission, waitUntil } from '../helpers/pipeline.js';
import { TestReceiver } from '../helpers/receiver.js';
import { createAccount, startTestService, type TestAccount, type TestService } from '../helpers/service.js';

/**
 * An endpoint whose every attempt fails is disabled (docs/webhooks.md): on the service's clock,
 * moved by the test, with a real receiver. Its events are then held (never dropped, never tried
 * while it is disabled) until it is enabled; a recovery finds them as `endpoint_disabled`.
 */

const DEADLINE = 30_000;
type Json = Record<string, unknown>;

describe('auto-disable of an endpoint that keeps failing', () => {
  const receiver = new TestReceiver();
  const clock = new SkewedClock();
  let url = '';
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    url = await receiver.start();
    service = await startTestService(
      {
        WEBHOOK_ALLOW_INSECURE: 'true',
        RATE_LIMIT_PER_MINUTE: '0',
        // Three attempts, 13 hours apart: the third comes 26 hours after the first.
        WEBHOOK_RETRY_SCHEDULE: '0s,13h,13h',
        WEBHOOK_DISABLE_AFTER: '1d',
        METRICS_PORT: '0',
      },
      'all',
      { clock: clock.date },
    );
    account = await createAccount(service);
  });
  afterAll(async () => {
    await service.stop();
    await receiver.stop();
  });

  async function endpoint(method = 'GET', path = '', body?: unknown): Promise<Json> {
    const res = await fetch(`${service.url}/v1/webhook-endpoint${path}`, {
      method,
      headers: {
        'x-api-key': account.apiKey,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as Json;
  }

  /** Once the delivery has failed attempt `attempt`, moves the clock to its retry. */
  const retryDue = (attempt: number) => retryDueOn(service, clock, account.tenantId, attempt, DEADLINE);

  const eventStatus = async (resultId: string) =>
    (await service.store.system.webhooks.eventForResult(service.store.driver.db, resultId))?.status;

  async function gauge(): Promise<string> {
    const text = await (await fetch(service.metricsUrl ?? '')).text();
    return text
      .split('\n')
      .filter((l) => l.startsWith('healthspan_webhook_endpoints{'))
      .join('\n');
  }

  it('disables it after a day of failures (not after 13 hours), holds its events, and enables it again', async () => {
    await endpoint('PUT', '', { url });
    receiver.fallback = 503;
    const first = await completeSubmission(service, account);
    await retryDue(1);
    await retryDue(2);
    // Failures span 13 hours: the clock runs, nothing is disabled yet.
    expect(await endpoint()).toMatchObject({ status: 'enabled', failingSince: expect.any(String) });

    // The third attempt, 26 hours after the first, disables it; the event is held, not failed.
    const disabled = await waitUntil(
      async () => {
        const e = await endpoint();
        return e.status === 'disabled' && e;
      },
      DEADLINE,
      'the endpoint to be disabled',
    );
    expect(disabled).toMatchObject({
      disabledAt: expect.any(String),
      disabledReason: expect.stringContaining('Every delivery attempt failed'),
    });
    await waitUntil(
      async () => (await eventStatus(first)) === 'endpoint_disabled',
      DEADLINE,
      'the event held',
    );
    const attempts = receiver.deliveries.length;
    expect(attempts).toBe(3);
    expect(service.logs.some((l) => l.includes('webhook endpoint disabled'))).toBe(true);
    expect(await gauge()).toContain('healthspan_webhook_endpoints{mode="live",status="disabled"} 1');
    const audit = await service.store.system.audit.list(account.tenantId, { limit: 50 });
    expect(audit.items.find((e) => e.action === 'webhook.endpoint_disabled')).toMatchObject({
      resourceId: account.partnerId,
      actor: { type: 'system' },
    });

    // A new event is held at once; a redelivery's job finds the endpoint disabled and holds it.
    const second = await completeSubmission(service, account);
    expect(await eventStatus(second)).toBe('endpoint_disabled');
    const redeliver = await cliFor(service, ['webhooks', 'redeliver', '--result', first]);
    expect(redeliver.code, redeliver.stderr).toBe(0);
    await waitUntil(async () => (await eventStatus(first)) === 'endpoint_disabled', DEADLINE, 'held again');
    expect(receiver.deliveries.length).toBe(attempts);

    // Enabled: the clock starts afresh, new events go out; the held ones wait for a recovery.
    receiver.fallback = 204;
    expect(await endpoint('POST', '/enable')).toMatchObject({ status: 'enabled', failingSince: null });
    const third = await completeSubmission(service, account);
    await waitUntil(async () => (await eventStatus(third)) === 'delivered', DEADLINE, 'a delivery');
    expect(await eventStatus(first)).toBe('endpoint_disabled');
    expect(await eventStatus(second)).toBe('endpoint_disabled');
    expect(await endpoint()).toMatchObject({ failingSince: null, last24Hours: { delivered: 1 } });
    expect(await gauge()).toContain('healthspan_webhook_endpoints{mode="live",status="enabled"} 1');
  });
});
