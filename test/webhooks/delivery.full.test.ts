import { spawnSync } from 'node:child_process';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/client/src/webhooks.js';
import { cliFor } from '../helpers/cli.js';
import { SkewedClock } from '../helpers/clock.js';
import { retryDue as retryDueOn } from '../helpers/delivery.js';
import { completeSubmission, waitUntil } from '../helpers/pipeline.js';
import { TestReceiver } from '../helpers/receiver.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers/service.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BODY_KEYS = [
  'eventType',
  'resultId',
  'submissionId',
  'partnerSubmissionId',
  'status',
  'statusLabel',
  'completedAt',
  'reportId',
];

/** The signature as computed by OpenSSL, not by our code. */
function opensslSignature(secret: string, timestamp: string, rawBody: Buffer): string {
  const res = spawnSync('openssl', ['dgst', '-sha256', '-hmac', secret], {
    input: Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]),
  });
  expect(res.status).toBe(0);
  const hex = /([0-9a-f]{64})\s*$/.exec(res.stdout.toString('utf8'))?.[1];
  expect(hex).toBeDefined();
  return `v1=${hex}`;
}

/** The same with Python's hmac module. */
function pythonSignature(secret: string, timestamp: string, rawBody: Buffer): string {
  const res = spawnSync(
    'python3',
    [
      '-c',
      'import sys,hmac,hashlib; print(hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())',
      secret,
    ],
    { input: Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]) },
  );
  expect(res.status).toBe(0);
  return `v1=${res.stdout.toString('utf8').trim()}`;
}

function header(d: { headers: Record<string, string | string[] | undefined> }, name: string): string {
  const value = d.headers[name.toLowerCase()];
  expect(typeof value, name).toBe('string');
  return value as string;
}

async function deliveries(service: TestService, partnerId: string) {
  const out = await cliFor(service, ['webhooks', 'deliveries', '--partner', partnerId]);
  expect(out.code, out.stderr).toBe(0);
  return out.json as {
    partnerId: string;
    deliveries: Array<{
      eventId: string;
      resultId: string;
      status: string;
      attempts: Array<{
        deliveryId: string;
        attempt: number;
        statusCode: number | null;
        errorClass: string | null;
        outcome: string;
      }>;
    }>;
  };
}

/**
 * Generous deadline for a submission's pipeline and its deliveries on a loaded machine: these
 * waits end as soon as their condition holds.
 */
const DEADLINE = 60_000;

/**
 * Waits until the partner's latest event has `status`, read from the store, then returns what
 * the operator's CLI lists. The wait does not poll through the CLI: each run is a child process
 * waited for synchronously, which stalls this process (and the worker in it that is being
 * waited for) for seconds on a loaded machine.
 */
async function deliveriesOnce(service: TestService, partnerId: string, status: string) {
  await waitUntil(
    async () => (await service.store.system.webhooks.deliveries(partnerId, 1))[0]?.status === status,
    DEADLINE,
    `the event to be ${status}`,
  );
  const d = await deliveries(service, partnerId);
  expect(d.deliveries[0]?.status).toBe(status);
  return d;
}

describe('result.ready delivery', () => {
  const receiver = new TestReceiver();
  let url: string;
  let service: TestService;
  const clock = new SkewedClock();

  /** Once the account's delivery has failed attempt `attempt`, moves the clock to its retry. */
  const retryDue = (account: TestAccount, attempt: number) =>
    retryDueOn(service, clock, account.tenantId, attempt, DEADLINE);

  beforeAll(async () => {
    url = await receiver.start();
    // The default per-attempt timeout (10 s): an answer from this loopback receiver never
    // comes near it, however loaded the machine. (With 500 ms, a slow 503 or 204 was recorded as
    // a timeout and retried.) A receiver that never answers is tested on sendOnce alone.
    // Retries are due a second after a failure on the service's clock, which the tests move
    // (`retryDue`) rather than wait for.
    service = await startTestService(
      { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_RETRY_SCHEDULE: '0s,1s,1s' },
      'all',
      { clock: clock.date },
    );
  });
  afterAll(async () => {
    await service.stop();
    await receiver.stop();
  });
  afterEach(() => {
    receiver.replies = [];
    receiver.fallback = 204;
  });

  it('warns at start that WEBHOOK_ALLOW_INSECURE is on', () => {
    expect(service.logs.some((l) => l.includes('WEBHOOK_ALLOW_INSECURE is on'))).toBe(true);
  });

  it('sends one signed result.ready that OpenSSL, Python and verifyWebhook accept; the result reads with it', async () => {
    const account = await createAccount(service);
    const set = await cliFor(service, [
      'webhooks',
      'set',
      '--partner',
      account.partnerId,
      '--url',
      url,
      '--api-key',
      'rk_receiver_key_1',
    ]);
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toEqual({
      partnerId: account.partnerId,
      mode: 'live',
      url,
      signingSecret: expect.stringMatching(/^whsec_/),
    });
    const secret = set.json!.signingSecret as string;

    const before = receiver.deliveries.length;
    const resultId = await completeSubmission(service, account, DEADLINE);
    const delivery = await waitUntil(async () => receiver.deliveries[before], DEADLINE, 'a delivery');

    expect(header(delivery, 'content-type')).toBe('application/json');
    expect(header(delivery, 'x-healthspan-event')).toBe('result.ready');
    expect(header(delivery, 'x-healthspan-delivery-id')).toMatch(UUID);
    expect(header(delivery, 'x-healthspan-event-id')).toMatch(UUID);
    expect(header(delivery, 'x-api-key')).toBe('rk_receiver_key_1');
    const timestamp = header(delivery, 'x-healthspan-timestamp');
    expect(timestamp).toMatch(/^\d+$/);
    const signature = header(delivery, 'x-healthspan-signature');
    expect(signature).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(opensslSignature(secret, timestamp, delivery.rawBody)).toBe(signature);
    expect(pythonSignature(secret, timestamp, delivery.rawBody)).toBe(signature);
    expect(verifyWebhook(delivery.rawBody, delivery.headers, secret)).toMatchObject({ ok: true });
    expect(verifyWebhook(delivery.rawBody, delivery.headers, 'whsec_not_the_secret')).toMatchObject({
      ok: false,
    });

    const body = JSON.parse(delivery.rawBody.toString('utf8')) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(BODY_KEYS);
    expect(body).toMatchObject({
      eventType: 'result.ready',
      resultId,
      partnerSubmissionId: bodyFor(account).partnerSubmissionId,
      status: 'completed',
      statusLabel: 'Completed',
    });
    expect(Number.isNaN(Date.parse(body.completedAt as string))).toBe(false);
    expect(delivery.rawBody.toString('utf8')).not.toContain(account.tenantId);

    // The receiver's next step: read the result with its API key; reportId is the pdf.
    const result = await getJson(service, `/v1/results/${body.resultId as string}`, {
      'x-api-key': account.apiKey,
    });
    expect(result.status).toBe(200);
    const items = (result.json.artifacts as { items: Array<{ artifactId: string; type: string }> }).items;
    expect(body.reportId).toBe(items.find((i) => i.type === 'pdf')!.artifactId);

    const log = await deliveriesOnce(service, account.partnerId, 'delivered');
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0]!.eventId).toBe(header(delivery, 'x-healthspan-event-id'));
    expect(log.deliveries[0]!.attempts).toEqual([
      expect.objectContaining({
        deliveryId: header(delivery, 'x-healthspan-delivery-id'),
        attempt: 1,
        statusCode: 204,
        errorClass: null,
        outcome: 'delivered',
      }),
    ]);
    // Exactly one event: nothing else arrives for this result.
    expect(
      receiver.deliveries.filter((d) => d.headers['x-healthspan-event-id'] === log.deliveries[0]!.eventId),
    ).toHaveLength(1);
  });

  it('prefers json, then html, for reportId when no pdf was asked for, and omits it for scores only', async () => {
    const account = await createAccount(service);
    expect(
      (await cliFor(service, ['webhooks', 'set', '--partner', account.partnerId, '--url', url])).code,
    ).toBe(0);
    for (const [outputs, expected] of [
      [['score', 'html', 'json'], 'json'],
      [['score', 'html'], 'html'],
      [['score'], undefined],
    ] as const) {
      const before = receiver.deliveries.length;
      const res = await postSubmission(
        service,
        bodyFor(account, (b) => {
          b.options.requestedOutputs = outputs;
        }),
        { apiKey: account.apiKey },
      );
      expect(res.status).toBe(202);
      const delivery = await waitUntil(async () => receiver.deliveries[before], DEADLINE, 'a delivery');
      const body = JSON.parse(delivery.rawBody.toString('utf8')) as Record<string, unknown>;
      const result = await getJson(service, `/v1/results/${body.resultId as string}`, {
        'x-api-key': account.apiKey,
      });
      const items = (result.json.artifacts as { items: Array<{ artifactId: string; type: string }> }).items;
      if (expected === undefined) expect('reportId' in body).toBe(false);
      else expect(body.reportId).toBe(items.find((i) => i.type === expected)!.artifactId);
    }
  });

  it('retries a receiver that drops the connection, then fails, on the schedule with new delivery ids and one event id', async () => {
    const account = await createAccount(service);
    const set = await cliFor(service, ['webhooks', 'set', '--partner', account.partnerId, '--url', url]);
    const secret = set.json!.signingSecret as string;
    receiver.replies = ['reset', 503];
    const before = receiver.deliveries.length;
    await completeSubmission(service, account, DEADLINE);
    await retryDue(account, 1);
    await retryDue(account, 2);
    await waitUntil(async () => receiver.deliveries.length >= before + 3, DEADLINE, 'three attempts');
    const three = receiver.deliveries.slice(before, before + 3);
    const eventIds = new Set(three.map((d) => header(d, 'x-healthspan-event-id')));
    const deliveryIds = new Set(three.map((d) => header(d, 'x-healthspan-delivery-id')));
    expect(eventIds.size).toBe(1);
    expect(deliveryIds.size).toBe(3);
    for (const d of three) expect(verifyWebhook(d.rawBody, d.headers, secret)).toMatchObject({ ok: true });
    // The body is the same bytes every time; only the signature's timestamp moves.
    expect(new Set(three.map((d) => d.rawBody.toString('utf8'))).size).toBe(1);
    // A retry never comes before its scheduled delay (1 s after the previous attempt ended), on
    // the service's clock, as the signatures' timestamps (whole seconds) show.
    const sentAt = three.map((d) => Number(header(d, 'x-healthspan-timestamp')));
    expect(sentAt[1]! - sentAt[0]!).toBeGreaterThanOrEqual(1);
    expect(sentAt[2]! - sentAt[1]!).toBeGreaterThanOrEqual(1);

    const log = await deliveriesOnce(service, account.partnerId, 'delivered');
    expect(
      log.deliveries[0]!.attempts.map((a) => [a.attempt, a.statusCode, a.errorClass, a.outcome]),
    ).toEqual([
      [1, null, 'connection_reset', 'failed'],
      [2, 503, 'http_status', 'failed'],
      [3, 204, null, 'delivered'],
    ]);
  });

  it('marks the event failed after the last scheduled attempt; redeliver sends it again with the same event id', async () => {
    const account = await createAccount(service);
    await cliFor(service, ['webhooks', 'set', '--partner', account.partnerId, '--url', url]);
    receiver.fallback = 500;
    const before = receiver.deliveries.length;
    const resultId = await completeSubmission(service, account, DEADLINE);
    await retryDue(account, 1);
    await retryDue(account, 2);
    const failed = await deliveriesOnce(service, account.partnerId, 'failed');
    expect(failed.deliveries[0]!.attempts).toHaveLength(3);
    expect(receiver.deliveries.length - before).toBe(3);
    const eventId = failed.deliveries[0]!.eventId;

    receiver.fallback = 204;
    const again = await cliFor(service, ['webhooks', 'redeliver', '--result', resultId]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.json).toEqual({ resultId, eventId });
    const redelivered = await waitUntil(
      async () => receiver.deliveries[before + 3],
      DEADLINE,
      'the redelivery',
    );
    expect(header(redelivered, 'x-healthspan-event-id')).toBe(eventId);
    await deliveriesOnce(service, account.partnerId, 'delivered');
  });

  it('sends nothing for a partner without a callback, records the event as failed for want of one, and redeliver says so', async () => {
    const account = await createAccount(service);
    const before = receiver.deliveries.length;
    const resultId = await completeSubmission(service, account, DEADLINE);
    const again = await cliFor(service, ['webhooks', 'redeliver', '--result', resultId]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no callback registered');
    // The event exists (issue 30: the partner sees it, a recovery can send it later), unattempted.
    expect((await deliveries(service, account.partnerId)).deliveries).toMatchObject([
      { resultId, status: 'failed', attempts: [] },
    ]);
    const [event] = await service.store.system.webhooks.deliveries(account.partnerId, 1);
    expect(await service.store.system.webhooks.event(service.store.system.db, event!.id)).toMatchObject({
      status: 'failed',
      failureReason: 'no_endpoint',
    });
    expect(receiver.deliveries.length).toBe(before);
  });

  it('gives a result completed before registration its event on redeliver', async () => {
    const account = await createAccount(service);
    const resultId = await completeSubmission(service, account, DEADLINE);
    const set = await cliFor(service, ['webhooks', 'set', '--partner', account.partnerId, '--url', url]);
    const before = receiver.deliveries.length;
    const again = await cliFor(service, ['webhooks', 'redeliver', '--result', resultId]);
    expect(again.code, again.stderr).toBe(0);
    const delivery = await waitUntil(async () => receiver.deliveries[before], DEADLINE, 'the delivery');
    expect(header(delivery, 'x-healthspan-event-id')).toBe(again.json!.eventId);
    expect(
      verifyWebhook(delivery.rawBody, delivery.headers, set.json!.signingSecret as string),
    ).toMatchObject({
      ok: true,
    });
  });

  it('keeps signing with the old secret until a rotated one takes effect', async () => {
    const account = await createAccount(service);
    const first = (await cliFor(service, ['webhooks', 'set', '--partner', account.partnerId, '--url', url]))
      .json!.signingSecret as string;
    const resultId = await completeSubmission(service, account, DEADLINE);
    await deliveriesOnce(service, account.partnerId, 'delivered');

    const later = await cliFor(service, ['webhooks', 'rotate-secret', '--partner', account.partnerId]);
    expect(later.code, later.stderr).toBe(0);
    const pending = later.json as { partnerId: string; signingSecret: string; activatesAt: string };
    expect(pending.signingSecret).not.toBe(first);
    const hours = (Date.parse(pending.activatesAt) - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);

    const redeliver = async () => {
      const before = receiver.deliveries.length;
      expect((await cliFor(service, ['webhooks', 'redeliver', '--result', resultId])).code).toBe(0);
      return waitUntil(async () => receiver.deliveries[before], DEADLINE, 'a redelivery');
    };
    const stillOld = await redeliver();
    expect(verifyWebhook(stillOld.rawBody, stillOld.headers, first)).toMatchObject({ ok: true });
    expect(verifyWebhook(stillOld.rawBody, stillOld.headers, pending.signingSecret)).toMatchObject({
      ok: false,
    });

    const now = await cliFor(service, [
      'webhooks',
      'rotate-secret',
      '--partner',
      account.partnerId,
      '--activate-in',
      '0s',
    ]);
    const current = now.json!.signingSecret as string;
    const rotated = await redeliver();
    expect(verifyWebhook(rotated.rawBody, rotated.headers, current)).toMatchObject({ ok: true });
    expect(verifyWebhook(rotated.rawBody, rotated.headers, first)).toMatchObject({ ok: false });
  });

  it('stores signing secrets and receiver keys sealed, never in plain text', async () => {
    const account = await createAccount(service);
    const set = await cliFor(service, [
      'webhooks',
      'set',
      '--partner',
      account.partnerId,
      '--url',
      url,
      '--api-key',
      'rk_plain_text_check',
      '--api-key-header',
      'Authorization',
    ]);
    const secret = set.json!.signingSecret as string;
    const db = service.store.driver.db;
    const rows = [
      ...(await db
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('partner_id', '=', account.partnerId)
        .execute()),
      ...(await db
        .selectFrom('webhook_secrets')
        .selectAll()
        .where('partner_id', '=', account.partnerId)
        .execute()),
    ];
    expect(rows).toHaveLength(2);
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(secret);
    expect(dump).not.toContain(secret.slice('whsec_'.length));
    expect(dump).not.toContain('rk_plain_text_check');
  });
});

describe('callback registration guard (WEBHOOK_ALLOW_INSECURE off)', () => {
  let service: TestService;
  let account: TestAccount;

  beforeAll(async () => {
    service = await startTestService({ WORKER_CONCURRENCY: '0' });
    account = await createAccount(service);
  });
  afterAll(async () => {
    await service.stop();
  });

  it('logs no insecure-mode warning', () => {
    expect(service.logs.some((l) => l.includes('WEBHOOK_ALLOW_INSECURE'))).toBe(false);
  });

  // Each refusal changes nothing and is a child process of its own: they run side by side.
  it.concurrent.each([
    ['http://hooks.example.com/x', 'https://'],
    ['https://127.0.0.1/x', 'loopback'],
    ['https://localhost:8443/x', 'loopback'],
    ['https://[::1]/x', 'loopback'],
    ['https://[::ffff:127.0.0.1]/x', 'loopback'],
    ['https://10.1.2.3/x', 'private'],
    ['https://192.168.0.10/x', 'private'],
    ['https://172.16.0.1/x', 'private'],
    ['https://[fd00::1]/x', 'private'],
    ['https://169.254.169.254/latest/meta-data', 'metadata'],
    ['https://169.254.10.1/x', 'link-local'],
    ['https://[fe80::1]/x', 'link-local'],
    ['https://224.0.0.1/x', 'multicast'],
    ['https://[ff02::1]/x', 'multicast'],
    ['https://user:pass@hooks.example.com/x', 'user name'],
  ])('refuses %s', async (target, reason) => {
    const out = await cliFor(service, ['webhooks', 'set', '--partner', account.partnerId, '--url', target]);
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(reason);
  });

  it('refuses a receiver key header that would overwrite the delivery’s own headers', async () => {
    for (const name of ['Content-Type', 'X-Healthspan-Signature', 'bad header']) {
      const out = await cliFor(service, [
        'webhooks',
        'set',
        '--partner',
        account.partnerId,
        '--url',
        'https://127.0.0.1/x',
        '--api-key',
        'k',
        '--api-key-header',
        name,
      ]);
      expect(out.code).toBe(1);
    }
  });
});

describe('redeliver while a retry is scheduled', () => {
  const receiver = new TestReceiver();
  let url: string;
  let service: TestService;

  beforeAll(async () => {
    url = await receiver.start();
    service = await startTestService({ WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_RETRY_SCHEDULE: '0s,1h' });
  });
  afterAll(async () => {
    await service.stop();
    await receiver.stop();
  });

  it('brings the scheduled attempt forward instead of adding a second delivery', async () => {
    const account = await createAccount(service);
    expect(
      (await cliFor(service, ['webhooks', 'set', '--partner', account.partnerId, '--url', url])).code,
    ).toBe(0);
    receiver.replies = [503];
    const resultId = await completeSubmission(service, account, DEADLINE);
    const db = service.store.driver.db;
    const deliveryJobs = () =>
      db.selectFrom('jobs').select(['status', 'attempts']).where('type', '=', 'webhook.deliver').execute();
    await waitUntil(
      async () => (await deliveryJobs())[0]?.status === 'retrying',
      DEADLINE,
      'the failed first attempt',
    );
    expect(receiver.deliveries).toHaveLength(1);
    // The next attempt is an hour away; redeliver makes it now.
    const again = await cliFor(service, ['webhooks', 'redeliver', '--result', resultId]);
    expect(again.code, again.stderr).toBe(0);
    await waitUntil(async () => receiver.deliveries.length === 2, DEADLINE, 'the attempt brought forward');
    const ids = receiver.deliveries.map((d) => header(d, 'x-healthspan-event-id'));
    expect(ids[1]).toBe(ids[0]);
    await waitUntil(async () => (await deliveryJobs())[0]?.status === 'completed', DEADLINE, 'completion');
    expect(await deliveryJobs()).toEqual([{ status: 'completed', attempts: 2 }]);
  });
});
