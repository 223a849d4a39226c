import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureFor } from '../../src/webhooks/signing.js';
import { cliFor } from '../helpers/cli.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  errorOf,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers/service.js';
import { SseStream } from '../helpers/sse.js';

/**
 * `GET /v1/test/events/stream` and `POST /v1/test/events/{eventId}/answers` (issue 30, "Test
 * events to a developer's machine"): test keys only, every test event whether or not a test
 * callback is set, signed with the key's listen secret, resumed with Last-Event-ID, answers kept
 * as `listen` attempts, streams ended on shutdown.
 */
interface Delivery {
  eventId: string;
  deliveryId: string;
  headers: Record<string, string>;
  body: string;
}

let service: TestService;
let live: TestAccount;
let test: TestAccount;

async function testAccount(): Promise<{ live: TestAccount; test: TestAccount }> {
  const account = await createAccount(service);
  const made = await cliFor(service, ['keys', 'create', '--partner', account.partnerId, '--mode', 'test']);
  if (made.code !== 0) throw new Error(`keys create --mode test failed: ${made.stderr}`);
  return {
    live: account,
    test: { ...account, keyId: made.json!.keyId as string, apiKey: made.json!.apiKey as string },
  };
}

/** Submits with the test key; the submission's id. */
async function submitTest(account: TestAccount): Promise<string> {
  const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json.submissionId as string;
}

function open(apiKey: string, lastEventId?: string): Promise<SseStream> {
  return SseStream.open(`${service.url}/v1/test/events/stream`, {
    'x-api-key': apiKey,
    ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
  });
}

function submissionsOf(stream: SseStream): string[] {
  return stream.data<Delivery>('result.ready').map((d) => JSON.parse(d.body).submissionId as string);
}

beforeAll(async () => {
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' });
  ({ live, test } = await testAccount());
});
afterAll(() => service?.stop());

describe('GET /v1/test/events/stream', () => {
  it('refuses a live key with 403 TEST_MODE_ONLY and a missing key with 401', async () => {
    const refused = await getJson(service, '/v1/test/events/stream', { 'x-api-key': live.apiKey });
    expect(refused.status).toBe(403);
    expect(errorOf(refused.json).code).toBe('TEST_MODE_ONLY');
    expect((await getJson(service, '/v1/test/events/stream')).status).toBe(401);
  });

  it('streams every test event (no test callback set) signed with the key’s listen secret in both schemes', async () => {
    const stream = await open(test.apiKey);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    const [started] = await waitUntil(async () => stream.data<{ listenSecret: string }>('listen.started'));
    expect(started!.listenSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const submitted = [await submitTest(test), await submitTest(test)];
    await waitUntil(async () => submissionsOf(stream).length >= 2, 60_000, 'two streamed events');
    stream.close();
    expect(submissionsOf(stream).sort()).toEqual([...submitted].sort());
    const wh = new Webhook(started!.listenSecret);
    for (const d of stream.data<Delivery>('result.ready')) {
      expect(d.headers['X-Healthspan-Mode']).toBe('test');
      expect(d.headers['X-Healthspan-Event-Id']).toBe(d.eventId);
      expect(d.headers['X-Healthspan-Delivery-Id']).toBe(d.deliveryId);
      const ts = d.headers['X-Healthspan-Timestamp']!;
      expect(d.headers['X-Healthspan-Signature']).toBe(signatureFor(started!.listenSecret, ts, d.body));
      expect(() =>
        wh.verify(d.body, {
          'webhook-id': d.headers['webhook-id']!,
          'webhook-timestamp': d.headers['webhook-timestamp']!,
          'webhook-signature': d.headers['webhook-signature']!,
        }),
      ).not.toThrow();
    }
    // The same secret on every connection of the key; another key has its own.
    const again = await open(test.apiKey);
    const [second] = await waitUntil(async () => again.data<{ listenSecret: string }>('listen.started'));
    again.close();
    expect(second!.listenSecret).toBe(started!.listenSecret);
    const other = await testAccount();
    const theirs = await open(other.test.apiKey);
    const [third] = await waitUntil(async () => theirs.data<{ listenSecret: string }>('listen.started'));
    theirs.close();
    expect(third!.listenSecret).not.toBe(started!.listenSecret);
  });

  it('resumes after Last-Event-ID with nothing lost and nothing repeated; another account’s or an altered id is 400', async () => {
    // A stream dropped before any event came: its first message's id is where it started.
    const early = await open(test.apiKey);
    const startId = (await waitUntil(async () => early.messages.find((m) => m.event === 'listen.started')))
      .id!;
    early.close();
    const first = await open(test.apiKey);
    await waitUntil(async () => first.data('listen.started').length === 1);
    const a = await submitTest(test);
    await waitUntil(async () => submissionsOf(first).includes(a), 60_000, 'the first event');
    first.close();
    const lastId = first.messages.filter((m) => m.event === 'result.ready').at(-1)!.id!;
    // Made while nobody listens.
    const b = await submitTest(test);
    const c = await submitTest(test);
    const resumed = await open(test.apiKey, lastId);
    await waitUntil(async () => submissionsOf(resumed).length >= 2, 60_000, 'the missed events');
    const d = await submitTest(test);
    await waitUntil(async () => submissionsOf(resumed).includes(d), 60_000, 'a new event');
    resumed.close();
    expect(submissionsOf(resumed).sort()).toEqual([b, c, d].sort());
    expect(new Set(resumed.messages.map((m) => m.id).filter(Boolean)).size).toBe(4);
    // Resumed from where the early stream started: every event made since, once.
    const fromStart = await open(test.apiKey, startId);
    await waitUntil(async () => submissionsOf(fromStart).length >= 4, 60_000, 'the events since the start');
    fromStart.close();
    expect(submissionsOf(fromStart).sort()).toEqual([a, b, c, d].sort());

    const other = await testAccount();
    for (const [key, id] of [
      [other.test.apiKey, lastId],
      [test.apiKey, `${lastId.slice(0, -2)}xx`],
      [test.apiKey, 'not-an-id'],
    ] as const) {
      const refused = await getJson(service, '/v1/test/events/stream', {
        'x-api-key': key,
        'last-event-id': id,
      });
      expect(refused.status).toBe(400);
      expect(errorOf(refused.json).code).toBe('VALIDATION_ERROR');
    }
    const unknown = await getJson(service, '/v1/test/events/stream?since=now', { 'x-api-key': test.apiKey });
    expect(unknown.status).toBe(400);
  });

  it('audits each stream opened, by key id', async () => {
    const page = await getJson(service, '/v1/audit-events?limit=200', { 'x-api-key': test.apiKey });
    const items = page.json.items as Array<{ action: string; resourceType: string; resourceId: string }>;
    expect(items.some((e) => e.action === 'webhook.listen_started' && e.resourceId === test.keyId)).toBe(
      true,
    );
  });
});

describe('POST /v1/test/events/{eventId}/answers', () => {
  async function report(apiKey: string, eventId: string, body: unknown) {
    const res = await fetch(`${service.url}/v1/test/events/${eventId}/answers`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  it('keeps the answer once as a listen attempt (1 KiB, no control characters); other accounts’ events and live keys are refused', async () => {
    const stream = await open(test.apiKey);
    const submissionId = await submitTest(test);
    const [delivery] = await waitUntil(async () => {
      const found = stream
        .data<Delivery>('result.ready')
        .filter((d) => JSON.parse(d.body).submissionId === submissionId);
      return found.length > 0 ? found : undefined;
    }, 60_000);
    stream.close();
    const answer = {
      deliveryId: delivery!.deliveryId,
      url: 'http://localhost:3000/webhooks',
      statusCode: 500,
      durationMs: 12,
      body: `oops\u0007\u001b[31m\r\n${'é'.repeat(2000)}`,
    };
    expect((await report(test.apiKey, delivery!.eventId, answer)).status).toBe(204);
    expect((await report(test.apiKey, delivery!.eventId, answer)).status).toBe(204);
    const rows = await service.store.driver.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where('event_id', '=', delivery!.eventId)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'listen', status_code: 500, outcome: 'failed', url: answer.url });
    const snippet = rows[0]!.response_snippet!;
    expect(snippet.startsWith('oops[31m')).toBe(true);
    expect(Buffer.byteLength(snippet)).toBeLessThanOrEqual(1024);
    expect([...snippet].some((ch) => ch.charCodeAt(0) < 0x20 || ch === '\uFFFD')).toBe(false);

    const live403 = await report(live.apiKey, delivery!.eventId, answer);
    expect(live403.status).toBe(403);
    const other = await testAccount();
    const notTheirs = await report(other.test.apiKey, delivery!.eventId, {
      ...answer,
      deliveryId: crypto.randomUUID(),
    });
    expect(notTheirs.status).toBe(404);
    const bad = await report(test.apiKey, delivery!.eventId, { ...answer, statusCode: 'teapot' });
    expect(bad.status).toBe(400);
    expect(errorOf(bad.json).code).toBe('VALIDATION_ERROR');
  });
});

describe('shutdown', () => {
  it('writes heartbeat comments while quiet, and ends open streams so the service stops', async () => {
    const own = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' }, 'all', {
      listenTiming: { heartbeatMs: 50 },
    });
    try {
      const account = await createAccount(own);
      const made = await cliFor(own, ['keys', 'create', '--partner', account.partnerId, '--mode', 'test']);
      const stream = await SseStream.open(`${own.url}/v1/test/events/stream`, {
        'x-api-key': made.json!.apiKey as string,
      });
      await waitUntil(async () => stream.data('listen.started').length === 1);
      await waitUntil(
        async () => stream.comments.filter((c) => c === 'keep-alive').length >= 2,
        10_000,
        'heartbeats',
      );
      expect(stream.ended).toBe(false);
      await own.stop();
      await waitUntil(async () => stream.ended, 10_000, 'the stream to end');
    } finally {
      await own.stop();
    }
  });
});
