import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor, setCallback } from '../helpers/cli.js';
import { waitUntil } from '../helpers/pipeline.js';
import { type ReceivedDelivery, TestReceiver } from '../helpers/receiver.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  serviceWithReceiver,
  type TestAccount,
  uniqueKey,
} from '../helpers/service.js';

/**
 * Test mode (docs/sandbox.md): `hs_test_` keys see test data only and live keys live data only,
 * on the real pipeline; a separate test callback with `X-Healthspan-Mode: test`; the two
 * simulations; and `POST /v1/test/events`.
 */
const ctx = serviceWithReceiver({
  JOB_MAX_ATTEMPTS: '3',
  JOB_RETRY_BASE_MS: '10',
  // Four attempts, so a simulated webhook failure has a third one to be delivered on.
  WEBHOOK_RETRY_SCHEDULE: '0s,10ms,10ms,10ms',
  METRICS_PORT: '0',
});
const testReceiver = new TestReceiver();
let testReceiverUrl = '';
beforeAll(async () => {
  testReceiverUrl = await testReceiver.start();
});
afterAll(() => testReceiver.stop());

interface Sandbox {
  live: TestAccount;
  test: TestAccount;
  testSecret?: string;
}

/** An account with a live key (as every test has) and a test key made by the real CLI. */
async function sandbox(opts: { testCallback?: boolean } = {}): Promise<Sandbox> {
  const live = await createAccount(ctx.service);
  const made = await cliFor(ctx.service, ['keys', 'create', '--partner', live.partnerId, '--mode', 'test']);
  if (made.code !== 0) throw new Error(`keys create --mode test failed: ${made.stderr}`);
  const test = { ...live, keyId: made.json!.keyId as string, apiKey: made.json!.apiKey as string };
  if (!opts.testCallback) return { live, test };
  const set = await cliFor(ctx.service, [
    'webhooks',
    'set',
    '--partner',
    live.partnerId,
    '--url',
    testReceiverUrl,
    '--mode',
    'test',
  ]);
  if (set.code !== 0) throw new Error(`webhooks set --mode test failed: ${set.stderr}`);
  return { live, test, testSecret: set.json!.signingSecret as string };
}

async function submit(account: TestAccount, partnerSubmissionId?: string, idempotencyKey = uniqueKey()) {
  const res = await postSubmission(
    ctx.service,
    bodyFor(account, (b) => {
      if (partnerSubmissionId !== undefined) b.partnerSubmissionId = partnerSubmissionId;
    }),
    { apiKey: account.apiKey, idempotencyKey },
  );
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json.submissionId as string;
}

async function finalState(account: TestAccount, submissionId: string) {
  return waitUntil(
    async () => {
      const r = await getJson(ctx.service, `/v1/submissions/${submissionId}`, {
        'x-api-key': account.apiKey,
      });
      return ['completed', 'failed', 'rejected'].includes(r.json.status as string) ? r.json : undefined;
    },
    60_000,
    `submission ${submissionId} to finish`,
  );
}

function deliveriesOf(receiver: TestReceiver, submissionId: string): ReceivedDelivery[] {
  return receiver.deliveries.filter(
    (d) => JSON.parse(d.rawBody.toString('utf8')).submissionId === submissionId,
  );
}

function verifies(secret: string, d: ReceivedDelivery): boolean {
  try {
    new Webhook(secret).verify(d.rawBody.toString('utf8'), {
      'webhook-id': String(d.headers['webhook-id']),
      'webhook-timestamp': String(d.headers['webhook-timestamp']),
      'webhook-signature': String(d.headers['webhook-signature']),
    });
    return true;
  } catch {
    return false;
  }
}

async function postTestEvent(apiKey: string, body: unknown) {
  const res = await fetch(`${ctx.service.url}/v1/test/events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('test mode', () => {
  it('issues hs_test_ keys for a credential, listed beside its live keys', async () => {
    const { live, test } = await sandbox();
    expect(test.apiKey).toMatch(/^hs_test_[A-Za-z0-9_-]{43}$/);
    const listed = (await cliFor(ctx.service, ['keys', 'list', '--partner', live.partnerId])).json!
      .keys as Array<{
      keyId: string;
      mode: string;
      prefix: string;
    }>;
    expect(listed.map((k) => [k.keyId, k.mode, k.prefix.slice(0, 8)])).toEqual([
      [live.keyId, 'live', 'hs_live_'],
      [test.keyId, 'test', 'hs_test_'],
    ]);
    // The sandbox is no account or credential of its own to the operator.
    const tenants = (await cliFor(ctx.service, ['tenants', 'list'])).json!.tenants as Array<{
      tenantId: string;
    }>;
    expect(tenants.filter((t) => t.tenantId === live.tenantId)).toHaveLength(1);
    const partners = (await cliFor(ctx.service, ['partners', 'list', '--tenant', live.tenantId])).json!
      .partners;
    expect(partners).toEqual([expect.objectContaining({ partnerId: live.partnerId })]);
  });

  it('keeps test and live data apart: the other mode’s ids answer 404, even for the same Idempotency-Key', async () => {
    const { live, test } = await sandbox();
    const key = uniqueKey('shared');
    // The same body (naming the same partnerId) and the same key, in each mode.
    const liveId = await submit(live, 'ps-live', key);
    const testId = await submit(test, 'ps-test', key);
    expect(testId).not.toBe(liveId);
    const liveDone = await finalState(live, liveId);
    const testDone = await finalState(test, testId);
    expect([liveDone.status, testDone.status]).toEqual(['completed', 'completed']);

    const read = (account: TestAccount, path: string) =>
      getJson(ctx.service, path, { 'x-api-key': account.apiKey }).then((r) => r.status);
    for (const [reader, own, other] of [
      [test, testDone, liveDone],
      [live, liveDone, testDone],
    ] as const) {
      expect(await read(reader, `/v1/submissions/${own.submissionId}`)).toBe(200);
      expect(await read(reader, `/v1/results/${own.resultId}`)).toBe(200);
      expect(await read(reader, `/v1/submissions/${other.submissionId}`)).toBe(404);
      expect(await read(reader, `/v1/results/${other.resultId}`)).toBe(404);
    }
    // Each mode's audit trail holds its own reads only.
    const audit = await getJson(ctx.service, '/v1/audit-events?limit=100', { 'x-api-key': test.apiKey });
    const resources = (audit.json.items as Array<{ resourceId: string }>).map((e) => e.resourceId);
    expect(resources).toContain(testId);
    expect(resources).not.toContain(liveId);

    // Deactivating the account stops its test keys too.
    expect((await cliFor(ctx.service, ['tenants', 'deactivate', live.tenantId])).code).toBe(0);
    await waitUntil(
      async () => (await read(test, `/v1/submissions/${testId}`)) === 403,
      30_000,
      'the test key refused',
    );
  });

  it('delivers test events to the test callback only, marked and signed with its own secret', async () => {
    const { live, test, testSecret } = await sandbox({ testCallback: true });
    const liveSecret = await setCallback(ctx.service, live.partnerId, ctx.receiverUrl);
    const testId = await submit(test);
    const liveId = await submit(live);
    const [testDelivery] = await waitUntil(
      async () =>
        deliveriesOf(testReceiver, testId).length > 0 ? deliveriesOf(testReceiver, testId) : undefined,
      60_000,
      'the test delivery',
    );
    const [liveDelivery] = await waitUntil(
      async () =>
        deliveriesOf(ctx.receiver, liveId).length > 0 ? deliveriesOf(ctx.receiver, liveId) : undefined,
      60_000,
      'the live delivery',
    );
    expect(testDelivery!.headers['x-healthspan-mode']).toBe('test');
    expect(liveDelivery!.headers['x-healthspan-mode']).toBeUndefined();
    expect(verifies(testSecret!, testDelivery!)).toBe(true);
    expect(verifies(liveSecret, testDelivery!)).toBe(false);
    expect(verifies(liveSecret, liveDelivery!)).toBe(true);
    expect(deliveriesOf(ctx.receiver, testId)).toEqual([]);
    expect(deliveriesOf(testReceiver, liveId)).toEqual([]);
    const shown = (
      await cliFor(ctx.service, ['webhooks', 'show', '--partner', live.partnerId, '--mode', 'test'])
    ).json;
    expect(shown).toMatchObject({ partnerId: live.partnerId, mode: 'test', url: testReceiverUrl });
  });

  it('simulate:processing_failure ends a test submission failed with a plain reason after the retries; a live one completes', async () => {
    const { live, test } = await sandbox();
    const testId = await submit(test, 'simulate:processing_failure-1');
    const failed = await finalState(test, testId);
    expect(failed.status).toBe('failed');
    const score = (failed.jobs as Array<Record<string, unknown>>).find((j) => j.type === 'pipeline.score');
    expect(score).toMatchObject({ status: 'failed', attempts: 3 });
    expect(score!.errorSummary).toMatch(/on purpose.*simulate:processing_failure/);
    // The same reference sent with a live key is just a reference.
    const liveId = await submit(live, 'simulate:processing_failure-1');
    expect((await finalState(live, liveId)).status).toBe('completed');
  });

  it('simulate:webhook_failure: the first two deliveries count as unanswered, the third is delivered (same event id)', async () => {
    const { live, test } = await sandbox({ testCallback: true });
    const testId = await submit(test, 'simulate:webhook_failure-1');
    const seen = await waitUntil(
      async () =>
        deliveriesOf(testReceiver, testId).length >= 3 ? deliveriesOf(testReceiver, testId) : undefined,
      60_000,
      'three deliveries',
    );
    expect(new Set(seen.map((d) => d.headers['webhook-id'])).size).toBe(1);
    const log = await waitUntil(
      async () => {
        const out = (
          await cliFor(ctx.service, ['webhooks', 'deliveries', '--partner', live.partnerId, '--mode', 'test'])
        ).json!.deliveries as Array<{ status: string; attempts: Array<Record<string, unknown>> }>;
        return out[0]?.status === 'delivered' ? out[0] : undefined;
      },
      30_000,
      'the event delivered',
    );
    expect(log.attempts.map((a) => [a.attempt, a.outcome, a.errorClass])).toEqual([
      [1, 'failed', 'timeout'],
      [2, 'failed', 'timeout'],
      [3, 'delivered', null],
    ]);
    expect(deliveriesOf(testReceiver, testId)).toHaveLength(3);
  });

  it('POST /v1/test/events sends a completed test result’s event now; live keys get 403', async () => {
    const { live, test, testSecret } = await sandbox({ testCallback: true });
    expect(await postTestEvent(live.apiKey, { type: 'result.ready' })).toMatchObject({
      status: 403,
      json: { error: { code: 'TEST_MODE_ONLY' } },
    });
    expect(await postTestEvent(test.apiKey, { type: 'result.ready' })).toMatchObject({
      status: 409,
      json: { error: { code: 'RESULT_NOT_READY' } },
    });
    expect(await postTestEvent(test.apiKey, { type: 'submission.created' })).toMatchObject({
      status: 400,
      json: { error: { code: 'VALIDATION_ERROR' } },
    });
    const testId = await submit(test);
    const done = await finalState(test, testId);
    await waitUntil(
      async () => deliveriesOf(testReceiver, testId).length === 1,
      60_000,
      'the first delivery',
    );

    // Without a resultId: the newest completed test result; with a live one's id: not found.
    const sent = await postTestEvent(test.apiKey, { type: 'result.ready' });
    expect(sent).toMatchObject({ status: 202, json: { type: 'result.ready', resultId: done.resultId } });
    const again = await waitUntil(
      async () => deliveriesOf(testReceiver, testId)[1],
      60_000,
      'the test event delivered',
    );
    expect(again.headers['webhook-id']).toBe(sent.json.eventId);
    expect(again.headers['x-healthspan-mode']).toBe('test');
    expect(verifies(testSecret!, again)).toBe(true);

    const liveId = await submit(live);
    const liveDone = await finalState(live, liveId);
    expect(
      await postTestEvent(test.apiKey, { type: 'result.ready', resultId: liveDone.resultId }),
    ).toMatchObject({
      status: 404,
      json: { error: { code: 'NOT_FOUND' } },
    });

    // A sandbox without a test callback is told so, and how to set one itself (no operator):
    // doing what it says makes the same request succeed.
    const bare = await sandbox();
    const bareId = await submit(bare.test);
    await finalState(bare.test, bareId);
    const refused = await postTestEvent(bare.test.apiKey, { type: 'result.ready' });
    expect(refused).toMatchObject({ status: 409, json: { error: { code: 'WEBHOOK_NOT_CONFIGURED' } } });
    const message = (refused.json.error as { message: string }).message;
    expect(message).toContain('PUT /v1/webhook-endpoint');
    expect(message).toContain('npx healthspan listen --forward-to');
    expect(message).not.toMatch(/operator/i);
    const put = await fetch(`${ctx.service.url}/v1/webhook-endpoint`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', 'x-api-key': bare.test.apiKey },
      body: JSON.stringify({ url: testReceiverUrl }),
    });
    expect(put.status).toBe(200);
    expect((await postTestEvent(bare.test.apiKey, { type: 'result.ready' })).status).toBe(202);
  });

  it('counts test traffic apart in the metrics, by a mode label', async () => {
    const { live, test } = await sandbox();
    const metrics = async () => (await fetch(`${ctx.service.metricsUrl}`)).text();
    const count = (text: string, mode: string) =>
      Number(
        new RegExp(
          `^healthspan_submissions_total\\{mode="${mode}",outcome="accepted",code=""\\} (\\d+)`,
          'm',
        ).exec(text)?.[1] ?? 0,
      );
    const before = await metrics();
    await submit(test);
    await submit(test);
    await submit(live);
    // Counted as each answer is sent, which may be just after the client has it.
    const after = await waitUntil(
      async () => {
        const text = await metrics();
        return count(text, 'test') - count(before, 'test') >= 2 &&
          count(text, 'live') - count(before, 'live') >= 1
          ? text
          : undefined;
      },
      30_000,
      'the submissions counted',
    );
    expect(count(after, 'test') - count(before, 'test')).toBe(2);
    expect(count(after, 'live') - count(before, 'live')).toBe(1);
    expect(after).toMatch(/^healthspan_jobs\{mode="test",type="pipeline.score",state="pending"\} \d+/m);
  });
});
