import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cleaner } from '../../src/queue/maintenance/cleaner.js';
import { WebhookAdmin } from '../../src/webhooks/admin.js';
import { secretBoxFor } from '../../src/webhooks/index.js';
import { SNIPPET_BYTES } from '../../src/webhooks/response-snippet.js';
import { completeSubmission, waitUntil } from '../helpers/pipeline.js';
import { TestReceiver } from '../helpers/receiver.js';
import {
  createAccount,
  errorOf,
  getJson,
  startTestService,
  type TestAccount,
  type TestService,
  testKeyFor,
} from '../helpers/service.js';

/**
 * Issue 30, "Events and deliveries": the account's events listed and read with their attempts
 * (what the receiver answered, sanitised and cut at 1 KiB), sent again one at a time, recovered
 * by window, on a real service delivering to a real loopback receiver.
 */

interface Attempt {
  deliveryId: string;
  attempt: number;
  kind: string;
  at: string;
  url: string;
  statusCode: number | null;
  errorClass: string | null;
  durationMs: number;
  outcome: string;
  responseSnippet: string | null;
}
interface Item {
  eventId: string;
  type: string;
  resultId: string;
  submissionId: string;
  deliveryStatus: string;
  failureReason: string | null;
  createdAt: string;
  deliveredAt: string | null;
  attemptCount: number;
}
interface Detail extends Item {
  body: string;
  attempts: Attempt[];
}

const DEADLINE = 60_000;
const receiver = new TestReceiver();
let receiverUrl: string;
let service: TestService;
let admin: WebhookAdmin;

beforeAll(async () => {
  receiverUrl = await receiver.start();
  // One attempt per delivery: a failed one is final at once.
  service = await startTestService({
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0s',
  });
  admin = new WebhookAdmin(service.store.system, secretBoxFor(service.config), {
    allowInsecure: true,
    scheduleMs: [0],
    clock: () => new Date(),
    tenants: service.store,
  });
});
afterAll(async () => {
  await service?.stop();
  await receiver.stop();
});

async function call(
  account: TestAccount,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      'x-api-key': account.apiKey,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

async function eventOf(account: TestAccount, resultId: string, status: string): Promise<Detail> {
  const item = await waitUntil(
    async () => {
      const page = (await getJson(service, '/v1/events', { 'x-api-key': account.apiKey })).json as {
        items: Item[];
      };
      return page.items.find((i) => i.resultId === resultId && i.deliveryStatus === status);
    },
    DEADLINE,
    `the event of ${resultId} to be ${status}`,
  );
  const res = await call(account, 'GET', `/v1/events/${item.eventId}`);
  expect(res.status).toBe(200);
  return res.json as unknown as Detail;
}

/** Deliveries the receiver got for the event. */
function received(eventId: string) {
  return receiver.deliveries.filter((d) => d.headers['webhook-id'] === eventId);
}

/** A receiver answer longer than 1 KiB, with terminal escapes, line breaks and a character cut at the limit. */
function noisyAnswer(): Buffer {
  const head = 'upstream\u001b[31m is down\r\n\ttry later\u0007 ';
  const pad = 'x'.repeat(SNIPPET_BYTES - Buffer.byteLength(head) - 1);
  // "é" is two bytes: its first falls on the last byte kept, so it is cut in two.
  return Buffer.from(`${head}${pad}é${'y'.repeat(2000)}`, 'utf8');
}

describe('events and their attempts', () => {
  it('lists the event and reads it with the exact signed body and the receiver’s answer, sanitised and cut at 1 KiB', async () => {
    const account = await createAccount(service);
    await admin.set(account.partnerId, receiverUrl, {});
    receiver.fallback = 503;
    receiver.answer = noisyAnswer();
    let resultId: string;
    try {
      resultId = await completeSubmission(service, account);
      const event = await eventOf(account, resultId, 'failed');
      expect(event.failureReason).toBe('attempts_exhausted');
      expect(event.attemptCount).toBe(1);
      const [delivery] = received(event.eventId);
      expect(delivery).toBeDefined();
      // The body as signed and sent, byte for byte.
      expect(event.body).toBe(delivery!.rawBody.toString('utf8'));
      const [attempt] = event.attempts;
      expect(attempt).toMatchObject({
        attempt: 1,
        kind: 'delivery',
        url: receiverUrl,
        statusCode: 503,
        errorClass: 'http_status',
        outcome: 'failed',
      });
      const snippet = attempt!.responseSnippet!;
      // The escape character goes; the printable rest of its sequence stays, harmless as text.
      expect(snippet.startsWith('upstream[31m is down try later ')).toBe(true);
      expect(snippet).not.toMatch(/[\p{Cc}]/u);
      expect(Buffer.byteLength(snippet)).toBeLessThanOrEqual(SNIPPET_BYTES);
      expect(snippet.endsWith('x')).toBe(true);
      expect(snippet).not.toContain('\ufffd');
    } finally {
      receiver.fallback = 204;
      receiver.answer = undefined;
    }
  });

  it('records an event without an endpoint (failed, no_endpoint), and refuses to send it without one', async () => {
    const account = await createAccount(service);
    const resultId = await completeSubmission(service, account);
    const event = await eventOf(account, resultId, 'failed');
    expect(event.failureReason).toBe('no_endpoint');
    expect(event.attempts).toEqual([]);
    const redeliver = await call(account, 'POST', `/v1/events/${event.eventId}/redeliver`);
    expect(redeliver.status).toBe(409);
    expect(errorOf(redeliver.json).code).toBe('WEBHOOK_NOT_CONFIGURED');
    const recover = await call(account, 'POST', '/v1/events/recover', {
      since: new Date(Date.now() - 3600_000).toISOString(),
    });
    expect(recover.status).toBe(409);
    expect(errorOf(recover.json).code).toBe('WEBHOOK_NOT_CONFIGURED');
  });

  it('sends an event again on request, under the same id, and refuses while the endpoint is disabled', async () => {
    const account = await createAccount(service);
    await admin.set(account.partnerId, receiverUrl, {});
    const resultId = await completeSubmission(service, account);
    const event = await eventOf(account, resultId, 'delivered');
    expect(received(event.eventId)).toHaveLength(1);

    const res = await call(account, 'POST', `/v1/events/${event.eventId}/redeliver`);
    expect(res.status).toBe(202);
    expect(res.json).toEqual({ eventId: event.eventId, deliveryStatus: 'pending' });
    await waitUntil(async () => received(event.eventId).length === 2, DEADLINE, 'the redelivery');
    const again = await eventOf(account, resultId, 'delivered');
    expect(again.attempts.map((a) => a.outcome)).toEqual(['delivered', 'delivered']);
    // A new delivery id each time, the same event id and body.
    const [first, second] = received(event.eventId);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(second!.rawBody.equals(first!.rawBody)).toBe(true);
    expect(second!.headers['x-healthspan-delivery-id']).not.toBe(first!.headers['x-healthspan-delivery-id']);

    await service.store.driver.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled' })
      .where('partner_id', '=', account.partnerId)
      .execute();
    const refused = await call(account, 'POST', `/v1/events/${event.eventId}/redeliver`);
    expect(refused.status).toBe(409);
    expect(errorOf(refused.json).code).toBe('WEBHOOK_ENDPOINT_DISABLED');
    const recover = await call(account, 'POST', '/v1/events/recover', {
      since: new Date(Date.now() - 3600_000).toISOString(),
    });
    expect(recover.status).toBe(409);
    expect(errorOf(recover.json).code).toBe('WEBHOOK_ENDPOINT_DISABLED');
    expect(received(event.eventId)).toHaveLength(2);
  });

  it('answers another account’s or the other mode’s events and recoveries 404, and lists only its own', async () => {
    const owner = await createAccount(service);
    await admin.set(owner.partnerId, receiverUrl, {});
    const resultId = await completeSubmission(service, owner);
    const event = await eventOf(owner, resultId, 'delivered');
    const started = await call(owner, 'POST', '/v1/events/recover', {
      since: new Date(Date.now() - 3600_000).toISOString(),
    });
    expect(started.status).toBe(202);
    const recoveryId = started.json.recoveryId as string;
    expect((await call(owner, 'GET', `/v1/recoveries/${recoveryId}`)).status).toBe(200);

    const other = await createAccount(service);
    for (const stranger of [other, await testKeyFor(service, owner)]) {
      expect((await call(stranger, 'GET', `/v1/events/${event.eventId}`)).status).toBe(404);
      expect((await call(stranger, 'POST', `/v1/events/${event.eventId}/redeliver`)).status).toBe(404);
      expect((await call(stranger, 'GET', `/v1/recoveries/${recoveryId}`)).status).toBe(404);
      const page = (await call(stranger, 'GET', '/v1/events')).json as unknown as { items: Item[] };
      expect(page.items.map((i) => i.eventId)).not.toContain(event.eventId);
    }
    for (const id of ['not-a-uuid', '00000000-0000-4000-8000-000000000000']) {
      expect((await call(owner, 'GET', `/v1/events/${id}`)).status).toBe(404);
      expect((await call(owner, 'GET', `/v1/recoveries/${id}`)).status).toBe(404);
    }
    // Every read answered is audited.
    const audit = await getJson(service, '/v1/audit-events?limit=200', { 'x-api-key': owner.apiKey });
    const actions = (audit.json.items as Array<{ action: string }>).map((a) => a.action);
    for (const action of ['event.listed', 'event.read', 'webhook.recovered', 'recovery.read'])
      expect(actions).toContain(action);
  });
});

describe('bad input', () => {
  async function fieldErrors(account: TestAccount, method: 'GET' | 'POST', path: string, body?: unknown) {
    const res = await call(account, method, path, body);
    expect(res.status, path).toBe(400);
    const error = errorOf(res.json);
    expect(error.code).toBe('VALIDATION_ERROR');
    return Object.keys((error.details as { fieldErrors: Record<string, string[]> }).fieldErrors);
  }

  it('names the query parameter or body field at fault', async () => {
    const account = await createAccount(service);
    expect(await fieldErrors(account, 'GET', '/v1/events?colour=red')).toEqual(['query.colour']);
    expect(await fieldErrors(account, 'GET', '/v1/events?limit=0')).toEqual(['query.limit']);
    expect(await fieldErrors(account, 'GET', '/v1/events?limit=201')).toEqual(['query.limit']);
    expect(await fieldErrors(account, 'GET', '/v1/events?deliveryStatus=lost')).toEqual([
      'query.deliveryStatus',
    ]);
    expect(await fieldErrors(account, 'GET', '/v1/events?type=result.lost')).toEqual(['query.type']);
    expect(await fieldErrors(account, 'GET', '/v1/events?createdAfter=yesterday')).toEqual([
      'query.createdAfter',
    ]);
    expect(await fieldErrors(account, 'GET', '/v1/events?cursor=abc.def')).toEqual(['query.cursor']);
    const day = 24 * 3600_000;
    expect(
      await fieldErrors(account, 'POST', '/v1/events/recover', {
        since: new Date(Date.now() - 31 * day).toISOString(),
      }),
    ).toEqual(['since']);
    expect(await fieldErrors(account, 'POST', '/v1/events/recover', { since: 'last tuesday' })).toEqual([
      'since',
    ]);
    const since = new Date(Date.now() - day).toISOString();
    expect(await fieldErrors(account, 'POST', '/v1/events/recover', { since, until: since })).toEqual([
      'until',
    ]);
    // A field the request does not have is named, as every body's 400 names it (http/errors.ts).
    expect(await fieldErrors(account, 'POST', '/v1/events/recover', { since, colour: 'red' })).toEqual([
      'colour',
    ]);
    expect(
      await fieldErrors(account, 'POST', '/v1/events/e0c9a5a4-0000-4000-8000-000000000000/redeliver', {
        colour: 'red',
      }),
    ).toEqual(['colour']);
    // A window starting in the future holds no event: refused like the other impossible windows,
    // not answered 202 with 0 events (issue 38).
    const future = await call(account, 'POST', '/v1/events/recover', {
      since: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(future.status).toBe(400);
    const [futureMessage] =
      (errorOf(future.json).details as { fieldErrors: Record<string, string[]> }).fieldErrors.since ?? [];
    expect(futureMessage).toMatch(
      /^since must not be later than now \(.+\): no event is created in the future\.$/,
    );
    const event = '00000000-0000-4000-8000-000000000000';
    expect((await call(account, 'POST', `/v1/events/${event}/redeliver`, { now: true })).status).toBe(400);
  });
});

describe('recovering a window', () => {
  it('sends every failed, held or never-sent event once more after the receiver is back, none twice from overlapping recovers', async () => {
    const account = await createAccount(service);
    const since = new Date(Date.now() - 60_000).toISOString();
    // Never sent: completed before an endpoint existed.
    const unsent = await completeSubmission(service, account);
    await admin.set(account.partnerId, receiverUrl, {});
    receiver.fallback = 503;
    let failed: string[];
    try {
      failed = [await completeSubmission(service, account), await completeSubmission(service, account)];
      for (const resultId of failed) await eventOf(account, resultId, 'failed');
    } finally {
      receiver.fallback = 204;
    }
    // Held, as while the endpoint was disabled.
    const held = (await eventOf(account, failed[1]!, 'failed')).eventId;
    await service.store.driver.db
      .updateTable('webhook_events')
      .set({ status: 'endpoint_disabled', failure_reason: null })
      .where('id', '=', held)
      .execute();
    const events = [
      await eventOf(account, unsent, 'failed'),
      await eventOf(account, failed[0]!, 'failed'),
      await eventOf(account, failed[1]!, 'endpoint_disabled'),
    ];
    const before = new Map(events.map((e) => [e.eventId, received(e.eventId).length]));

    // Two recoveries of the same window at once: between them, each event is queued once.
    const [a, b] = await Promise.all([
      call(account, 'POST', '/v1/events/recover', { since }),
      call(account, 'POST', '/v1/events/recover', { since }),
    ]);
    expect([a.status, b.status]).toEqual([202, 202]);
    expect((a.json.eventCount as number) + (b.json.eventCount as number)).toBe(3);
    for (const event of events) {
      await waitUntil(
        async () => (await eventOf(account, event.resultId, 'delivered')) !== undefined,
        DEADLINE,
        'the recovered delivery',
      );
    }
    // A third recovery, once all are delivered, has nothing to send.
    const third = await call(account, 'POST', '/v1/events/recover', { since });
    expect(third.json.eventCount).toBe(0);
    for (const event of events) expect(received(event.eventId).length - before.get(event.eventId)!).toBe(1);

    const recoveryId = (a.json.eventCount === 3 ? a : b).json.recoveryId as string;
    const progress = await call(account, 'GET', `/v1/recoveries/${recoveryId}`);
    expect(progress.status).toBe(200);
    expect(progress.json).toMatchObject({
      recoveryId,
      status: 'finished',
      since: new Date(since).toISOString(),
      until: null,
      eventCount: 3,
      progress: { pending: 0, delivered: 3, failed: 0, endpointDisabled: 0 },
    });
  });
});

describe('attempt retention', () => {
  it('deletes attempts, with the answers they keep, once past WEBHOOK_ATTEMPT_RETENTION; the event stays', async () => {
    const account = await createAccount(service);
    await admin.set(account.partnerId, receiverUrl, {});
    // A 200 with a body (a 204 has none).
    receiver.fallback = 200;
    receiver.answer = 'accepted, thank you';
    let event: Detail;
    try {
      event = await eventOf(account, await completeSubmission(service, account), 'delivered');
    } finally {
      receiver.fallback = 204;
      receiver.answer = undefined;
    }
    expect(event.attempts.map((a) => a.responseSnippet)).toEqual(['accepted, thank you']);
    const day = 24 * 3600_000;
    const cleanerAt = (ms: number) =>
      new Cleaner({
        store: service.store.system,
        clock: () => new Date(ms),
        webhookAttemptRetentionMs: 30 * day,
      });
    const madeAt = Date.parse(event.attempts[0]!.at);
    await cleanerAt(madeAt + 30 * day - 60_000).runOnce();
    expect((await eventOf(account, event.resultId, 'delivered')).attempts).toHaveLength(1);
    const report = await cleanerAt(madeAt + 30 * day + 60_000).runOnce();
    expect(report.webhookAttempts).toBeGreaterThanOrEqual(1);
    const after = await eventOf(account, event.resultId, 'delivered');
    expect(after.attempts).toEqual([]);
    expect(after.attemptCount).toBe(0);
    const kept = await service.store.driver.db
      .selectFrom('webhook_attempts')
      .select('response_snippet')
      .where('event_id', '=', event.eventId)
      .execute();
    expect(kept).toEqual([]);
  });
});
