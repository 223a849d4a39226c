import { afterEach, describe, expect, it } from 'vitest';
import { checksIdentity } from '../../src/ingest/index.js';
import type { Worker } from '../../src/queue/worker.js';
import { startPipelineWorker, waitUntil } from '../helpers/pipeline.js';
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
 * Issue 40: a chained run parses the normalised submission once and hands the object along; the
 * door records which checks it ran, and the check step does not run the same checks again.
 */

const running: Array<TestService | Worker> = [];
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.stop();
});

async function service(): Promise<TestService> {
  const s = await startTestService({ WORKER_CONCURRENCY: '0', RATE_LIMIT_PER_MINUTE: '0' });
  running.push(s);
  return s;
}

async function submit(s: TestService, account: TestAccount, outputs = ['score', 'json']): Promise<string> {
  const res = await postSubmission(
    s,
    bodyFor(account, (b) => {
      b.options.requestedOutputs = outputs;
    }),
    { apiKey: account.apiKey },
  );
  expect(res.status).toBe(202);
  return String(res.json.submissionId);
}

async function detail(s: TestService, account: TestAccount, id: string) {
  return (await getJson(s, `/v1/submissions/${id}`, { 'x-api-key': account.apiKey })).json as {
    status: string;
    resultId?: string;
    jobs: Array<{ type: string; status: string }>;
  };
}

function completed(s: TestService, account: TestAccount, id: string) {
  return waitUntil(async () => {
    const d = await detail(s, account, id);
    return d.status === 'completed' && d;
  });
}

function doorRecord(s: TestService, id: string) {
  return s.store.driver.db
    .selectFrom('submissions')
    .select(['door_checks', 'door_outcome'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

describe('what the door recorded of its checks', () => {
  it('is stored with the submission, and the check step trusts it: it does not read the original body again', async () => {
    const s = await service();
    const account = await createAccount(s);
    const id = await submit(s, account);
    expect(await doorRecord(s, id)).toEqual({ door_checks: checksIdentity(), door_outcome: 'passed' });
    // Checked again, this body would be rejected as unreadable; the checks it passed stand.
    await s.store.driver.db
      .updateTable('submissions')
      .set({ original_body: '{"not json' })
      .where('id', '=', id)
      .execute();
    running.push(startPipelineWorker(s));
    const done = await completed(s, account, id);
    expect(done.jobs.map((j) => [j.type, j.status])).toEqual([
      ['pipeline.ingest_validate', 'completed'],
      ['pipeline.score', 'completed'],
      ['pipeline.render_reports', 'completed'],
    ]);
  });

  it('is absent from a row written before it was recorded: the checks run in full, normalising the original body again', async () => {
    const s = await service();
    const account = await createAccount(s);
    const id = await submit(s, account);
    const db = s.store.system.db;
    const normalised = (await s.store.system.pipeline.load(db, id))!.normalisedBody;
    // A normalised text that is not what the checks make of the original: only a check step that
    // runs them writes theirs back.
    const stale = { ...JSON.parse(normalised), partnerSubjectId: 'stale' };
    await s.store.driver.db
      .updateTable('submissions')
      .set({ door_checks: null, door_outcome: null, normalised_body: JSON.stringify(stale) })
      .where('id', '=', id)
      .execute();
    expect(await s.store.system.pipeline.load(db, id)).toMatchObject({ doorCheck: null });
    running.push(startPipelineWorker(s));
    expect((await completed(s, account, id)).status).toBe('completed');
    expect((await s.store.system.pipeline.load(db, id))?.normalisedBody).toBe(normalised);
  });
});
