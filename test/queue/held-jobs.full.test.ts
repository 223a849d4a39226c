import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor } from '../helpers/cli.js';
import { waitUntil } from '../helpers/pipeline.js';
import { type ServiceProcess, serveProcess, stopProcess } from '../helpers/processes.js';
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

/**
 * A deactivated account's accepted work is held, not run (issue 32): a real worker process
 * claims none of it (no attempt counted, nothing failed), the queue gauge counts it as `held`,
 * and reactivating the account is all it takes for it to complete and call back.
 */
let api: TestService;
let worker: ServiceProcess | undefined;
const receiver = new TestReceiver();
let receiverUrl = '';

beforeAll(async () => {
  receiverUrl = await receiver.start();
  // The API and the metrics here; the worker, started later, in a process of its own.
  api = await startTestService(
    {
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_INSECURE: 'true',
      WORKER_CONCURRENCY: '0',
      METRICS_PORT: '0',
    },
    'api',
  );
});
afterAll(async () => {
  if (worker) await stopProcess(worker);
  await api?.stop();
  await receiver.stop();
});

async function accountWithCallbacks(name: string): Promise<TestAccount> {
  const account = await createAccount(api, { name });
  const set = await cliFor(api, ['webhooks', 'set', '--partner', account.partnerId, '--url', receiverUrl]);
  expect(set.code, set.stderr).toBe(0);
  return account;
}

async function submit(account: TestAccount): Promise<string> {
  const res = await postSubmission(api, bodyFor(account), { apiKey: account.apiKey });
  expect(res.status).toBe(202);
  return res.json.submissionId as string;
}

function jobsOf(submissionId: string) {
  return api.store.system.jobs.forSubmission(submissionId);
}

/** The `healthspan_jobs` gauge as scraped: the count of live jobs in `state`, all types. */
async function gauged(state: string): Promise<number> {
  const text = await (await fetch(`${api.metricsUrl}`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (
      line.startsWith('healthspan_jobs{') &&
      line.includes('mode="live"') &&
      line.includes(`state="${state}"`)
    )
      sum += Number(line.split(' ').at(-1));
  }
  return sum;
}

/** The gauge is read at most once a second: wait until a scrape shows `count` in `state`. */
async function gaugeShows(state: string, count: number): Promise<void> {
  await waitUntil(async () => (await gauged(state)) === count, 30_000, `healthspan_jobs ${state} = ${count}`);
}

function calledBackFor(submissionId: string): boolean {
  return receiver.deliveries.some((d) => d.rawBody.toString('utf8').includes(submissionId));
}

async function completedOrUndefined(account: TestAccount, submissionId: string) {
  const r = await getJson(api, `/v1/submissions/${submissionId}`, { 'x-api-key': account.apiKey });
  return r.json.status === 'completed' ? true : undefined;
}

describe('a deactivated account', () => {
  it('has its accepted work held, not run, until it is activated again', async () => {
    const held = await accountWithCallbacks('Held');
    const late = await accountWithCallbacks('Late');
    const other = await accountWithCallbacks('Other');
    const forgotten = await accountWithCallbacks('Forgotten');
    const accepted = await submit(held);
    const toErase = await submit(forgotten);
    // A job the deactivation does not see (as a running step's successor or a retry would be):
    // the account switched off under it, bypassing the command. The claim sets it aside.
    const unseen = await submit(late);

    for (const account of [held, forgotten]) {
      const off = await cliFor(api, ['tenants', 'deactivate', account.tenantId]);
      expect(off.code, off.stderr).toBe(0);
    }
    await api.store.driver.db
      .updateTable('tenants')
      .set({ active: api.store.driver.bool(false) })
      .where('id', '=', late.tenantId)
      .execute();
    const [waiting] = await jobsOf(accepted);
    expect(waiting).toMatchObject({ status: 'held', attempts: 0, sla_deadline_at: null });
    await gaugeShows('held', 2);
    await gaugeShows('pending', 1);

    // A worker runs another account's work to the end, and not a step of the held accounts'.
    worker = await serveProcess('worker', {
      DATA_DIR: api.config.dataDir,
      ...(api.config.databaseUrl ? { DATABASE_URL: api.config.databaseUrl } : {}),
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0s',
    });
    await waitUntil(
      async () => (await jobsOf(unseen))[0]?.status === 'held',
      60_000,
      'the claim to set the job aside',
    );
    const ran = await submit(other);
    await waitUntil(() => completedOrUndefined(other, ran), 60_000, 'the other account’s submission');
    await waitUntil(async () => calledBackFor(ran), 60_000, 'the other account’s callback');
    expect(await jobsOf(accepted)).toEqual([waiting]);
    expect(await jobsOf(unseen)).toMatchObject([{ status: 'held', attempts: 0, sla_deadline_at: null }]);
    expect(calledBackFor(accepted) || calledBackFor(unseen)).toBe(false);
    await gaugeShows('held', 3);

    // An erasure is never held: forgetting a person is owed whatever the account's state.
    const subject = String(bodyFor(forgotten).partnerSubjectId);
    const erase = await cliFor(api, [
      'subjects',
      'erase',
      '--tenant',
      forgotten.tenantId,
      '--subject',
      subject,
    ]);
    expect(erase.code, erase.stderr).toBe(0);
    const erasureId = String(erase.json?.erasureId);
    await waitUntil(
      async () => (await cliFor(api, ['erasures', 'show', erasureId])).json?.status === 'completed',
      60_000,
      'the erasure of a deactivated account’s subject',
    );
    // Its held step went with the submission; only the erasure's own job is left.
    expect((await jobsOf(toErase)).map((j) => [j.type, j.status])).toEqual([['subject.erase', 'completed']]);
    await gaugeShows('held', 2);

    for (const account of [held, late]) {
      const on = await cliFor(api, ['tenants', 'activate', account.tenantId]);
      expect(on.code, on.stderr).toBe(0);
    }
    for (const [account, submissionId] of [
      [held, accepted],
      [late, unseen],
    ] as const) {
      await waitUntil(
        () => completedOrUndefined(account, submissionId),
        60_000,
        'a held submission to complete',
      );
      await waitUntil(async () => calledBackFor(submissionId), 60_000, 'a held submission’s callback');
      // Its first step ran once, as if it had never waited.
      expect((await jobsOf(submissionId))[0]).toMatchObject({ status: 'completed', attempts: 1 });
    }
    await gaugeShows('held', 0);
  });
});
