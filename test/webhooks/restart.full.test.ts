import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/client/src/webhooks.js';
import { cliFor } from '../helpers/cli.js';
import { SkewedClock } from '../helpers/clock.js';
import { createTestDatabase, type TestDatabase, testStoreKind } from '../helpers/database.js';
import { waitUntil } from '../helpers/pipeline.js';
import { TestReceiver } from '../helpers/receiver.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  startTestService,
  type TestService,
} from '../helpers/service.js';

/**
 * A receiver outage across a service restart: the event is a job in the database, so the
 * restarted service delivers it on schedule; nothing acknowledged is lost.
 */
describe('delivery across a restart', () => {
  const receiver = new TestReceiver();
  let url: string;
  let first: TestService;
  let second: TestService | undefined;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    url = await receiver.start();
  });
  afterAll(async () => {
    await second?.stop();
    await first.stop();
    await receiver.stop();
    await database?.drop();
  });

  it('delivers after the service restarted between attempts', async () => {
    // One database for both lives of the service (a service's own test database goes with it).
    database = testStoreKind() === 'postgres' ? await createTestDatabase() : undefined;
    // The second attempt is an hour after the first: the first life certainly ends before it.
    const env = {
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0s,1h,1s',
      ...(database ? { DATABASE_URL: database.url } : {}),
    };
    first = await startTestService(env);
    const account = await createAccount(first);
    const set = await cliFor(first, ['webhooks', 'set', '--partner', account.partnerId, '--url', url]);
    expect(set.code, set.stderr).toBe(0);
    receiver.replies = [503, 502];

    const res = await postSubmission(first, bodyFor(account), { apiKey: account.apiKey });
    expect(res.status).toBe(202);
    await waitUntil(async () => receiver.deliveries.length >= 1, 60_000, 'the first attempt');
    await first.stop();
    expect(receiver.deliveries).toHaveLength(1);

    // The same data directory (and database), a new process's worth of state, whose queue runs
    // an hour and a minute ahead (an injected clock): the retry the first life scheduled is due.
    const ahead = new SkewedClock();
    ahead.advance(61 * 60_000);
    second = await startTestService({ ...env, DATA_DIR: first.config.dataDir }, 'all', {
      clock: ahead.date,
    });
    await waitUntil(async () => receiver.deliveries.length >= 3, 60_000, 'the attempts after the restart');
    const attempts = receiver.deliveries.slice(0, 3);
    expect(new Set(attempts.map((d) => d.headers['x-healthspan-event-id'])).size).toBe(1);
    expect(new Set(attempts.map((d) => d.headers['x-healthspan-delivery-id'])).size).toBe(3);
    // Each attempt is signed at its own life's time: the second life's clock runs ahead.
    for (const [i, d] of attempts.entries()) {
      const now = i === 0 ? new Date() : ahead.date();
      expect(verifyWebhook(d.rawBody, d.headers, set.json!.signingSecret as string, { now })).toMatchObject({
        ok: true,
      });
    }
    const body = JSON.parse(attempts[2]!.rawBody.toString('utf8')) as { resultId: string };
    const result = await getJson(second, `/v1/results/${body.resultId}`, { 'x-api-key': account.apiKey });
    expect(result.status).toBe(200);
    // Waited for in the store; the CLI (a child process this process waits for) is asked once.
    await waitUntil(
      async () =>
        (await second!.store.system.webhooks.deliveries(account.partnerId, 1))[0]?.status === 'delivered',
      60_000,
      'the event to be delivered',
    );
    const out = await cliFor(second!, ['webhooks', 'deliveries', '--partner', account.partnerId]);
    const log = out.json as { deliveries: Array<{ status: string; attempts: Array<{ outcome: string }> }> };
    expect(log.deliveries[0]?.status).toBe('delivered');
    expect(log.deliveries[0]!.attempts.map((a) => a.outcome)).toEqual(['failed', 'failed', 'delivered']);
  });
});
