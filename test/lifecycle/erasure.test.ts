import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/index.js';
import { isPacked, unpackJson } from '../../src/store/packing/packed-json.js';
import { findInFiles, storeFiles } from '../helpers/byte-scan.js';
import { cliFor, setCallback } from '../helpers/cli.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  errorOf,
  getJson,
  postSubmission,
  serviceWithReceiver,
  startTestService,
  type TestAccount,
  testStoreKind,
  uniqueKey,
} from '../helpers/service.js';

/**
 * Erasure on request, end to end on the store under test: what the partner sees, what is left in
 * every table, and (SQLite) what is left in the bytes of the database files.
 */

const ctx = serviceWithReceiver();

/** Strings only this test's subject carries, in ids, free text and values. */
function subjectStrings() {
  const tag = randomUUID().replace(/-/g, '');
  return {
    subject: `subj-${tag}`,
    submissions: [`sub-a-${tag}`, `sub-b-${tag}`],
    lab: `Lab ${tag} Nord`,
  };
}

async function submit(
  account: TestAccount,
  subject: string,
  partnerSubmissionId: string,
  lab: string,
  idempotencyKey = uniqueKey(),
) {
  const res = await postSubmission(
    ctx.service,
    bodyFor(account, (b) => {
      b.partnerSubjectId = subject;
      b.partnerSubmissionId = partnerSubmissionId;
      b.options.requestedOutputs = ['score', 'json', 'html', 'pdf'];
      b.sourceMetadata.labName = lab;
    }),
    { apiKey: account.apiKey, idempotencyKey },
  );
  expect(res.status).toBe(202);
  return { submissionId: String(res.json.submissionId), idempotencyKey };
}

const auth = (account: TestAccount) => ({ 'x-api-key': account.apiKey });

async function completed(account: TestAccount, submissionId: string) {
  return waitUntil(
    async () => {
      const r = await getJson(ctx.service, `/v1/submissions/${submissionId}`, auth(account));
      return r.json.status === 'completed' ? r.json : undefined;
    },
    60_000,
    `submission ${submissionId} completed`,
  );
}

async function erase(account: TestAccount, subject: string) {
  const res = await fetch(`${ctx.service.url}/v1/subjects/${encodeURIComponent(subject)}`, {
    method: 'DELETE',
    headers: { ...auth(account), 'x-correlation-id': 'erase-test' },
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

async function erasureDone(account: TestAccount, erasureId: string) {
  return waitUntil(
    async () => {
      const r = await getJson(ctx.service, `/v1/erasures/${erasureId}`, auth(account));
      return r.json.status === 'completed' ? r.json : undefined;
    },
    60_000,
    `erasure ${erasureId} completed`,
  );
}

/** Bytes as text: a packed document's own, other bytes as they are. */
const bytesAsText = (v: Uint8Array) => (isPacked(v) ? unpackJson(v) : Buffer.from(v).toString('latin1'));

/** A row with its bytes as text, before JSON.stringify, which would list a Buffer's numbers. */
const readable = (r: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(r).map(([k, v]) => [k, v instanceof Uint8Array ? bytesAsText(v) : v]));

/** Every table's rows as text (packed documents unpacked), for a search of what is left. */
async function everyRowAsText(store: Store): Promise<string> {
  const db = store.driver.db;
  const tables = await db.introspection.getTables();
  const out: string[] = [];
  for (const table of tables) {
    if (table.name.startsWith('kysely_')) continue;
    const { rows } = await sql<Record<string, unknown>>`select * from ${sql.table(table.name)}`.execute(db);
    out.push(...rows.map((r) => JSON.stringify(readable(r))));
  }
  return out.join('\n');
}

/** The queue has nothing left to do (erasure jobs and every pipeline step done). */
async function queueIdle() {
  await waitUntil(
    async () => {
      const busy = await ctx.service.store.driver.db
        .selectFrom('jobs')
        .select('id')
        .where('status', 'in', ['pending', 'running', 'retrying'])
        .execute();
      return busy.length === 0;
    },
    60_000,
    'an idle queue',
  );
}

describe('erasure of a subject', () => {
  it('removes every trace of the subject, keeps other subjects, and refuses a replay with 410', async () => {
    const account = await createAccount(ctx.service);
    await setCallback(ctx.service, account.partnerId, ctx.receiverUrl);
    const s = subjectStrings();
    const other = subjectStrings();
    const a = await submit(account, s.subject, s.submissions[0]!, s.lab);
    const b = await submit(account, s.subject, s.submissions[1]!, s.lab);
    const kept = await submit(account, other.subject, other.submissions[0]!, other.lab);
    for (const x of [a, b, kept]) await completed(account, x.submissionId);
    const detail = await getJson(ctx.service, `/v1/submissions/${a.submissionId}`, auth(account));
    const resultId = String(detail.json.resultId);
    const result = await getJson(ctx.service, `/v1/results/${resultId}`, auth(account));
    const items = (result.json.artifacts as { items: Array<{ access: { downloadUrl: string } }> }).items;
    const signed = new URL(items[0]!.access.downloadUrl);
    const link = `${ctx.service.url}${signed.pathname}${signed.search}`;
    expect((await fetch(link)).status).toBe(200);
    await waitUntil(async () => ctx.receiver.deliveries.length >= 3, 30_000, 'three callbacks');
    await queueIdle();

    const requested = await erase(account, s.subject);
    expect(requested.status).toBe(202);
    expect(requested.json).toEqual({
      erasureId: expect.any(String),
      partnerSubjectId: s.subject,
      status: 'pending',
      requestedAt: expect.any(String),
    });
    const erasureId = String(requested.json.erasureId);
    expect(requested.headers.get('location')).toBe(`/v1/erasures/${erasureId}`);
    const done = await erasureDone(account, erasureId);
    expect(done).toMatchObject({
      erasureId,
      partnerSubjectId: s.subject,
      status: 'completed',
      counts: { submissions: 2, results: 2, artifacts: 6 },
    });
    expect(typeof done.completedAt).toBe('string');

    // What the partner sees.
    for (const id of [a.submissionId, b.submissionId]) {
      expect((await getJson(ctx.service, `/v1/submissions/${id}`, auth(account))).status).toBe(404);
    }
    expect((await getJson(ctx.service, `/v1/results/${resultId}`, auth(account))).status).toBe(404);
    expect([403, 404]).toContain((await fetch(link)).status);
    const replay = await postSubmission(
      ctx.service,
      bodyFor(account, (body) => {
        body.partnerSubjectId = s.subject;
        body.partnerSubmissionId = s.submissions[0];
        body.options.requestedOutputs = ['score', 'json', 'html', 'pdf'];
        body.sourceMetadata.labName = s.lab;
      }),
      { apiKey: account.apiKey, idempotencyKey: a.idempotencyKey },
    );
    expect(replay.status).toBe(410);
    expect(errorOf(replay.json).code).toBe('SUBMISSION_ERASED');
    // The other subject is untouched.
    expect(
      (await getJson(ctx.service, `/v1/submissions/${kept.submissionId}`, auth(account))).json.status,
    ).toBe('completed');

    // What is left in the store: no table holds any of the subject's strings.
    await queueIdle();
    const text = await everyRowAsText(ctx.service.store);
    for (const needle of [s.subject, ...s.submissions, s.lab]) expect(text).not.toContain(needle);
    expect(text).toContain(other.subject);
    expect(text).toContain(other.lab);
    const db = ctx.service.store.driver.db;
    for (const table of ['submissions', 'results', 'artifacts'] as const) {
      const rows = await db
        .selectFrom(table)
        .select('id')
        .where(table === 'submissions' ? 'id' : 'submission_id', 'in', [a.submissionId, b.submissionId])
        .execute();
      expect(rows, table).toEqual([]);
    }
    const jobs = await db
      .selectFrom('jobs')
      .select(['type', 'payload'])
      .where('submission_id', 'in', [a.submissionId, b.submissionId])
      .execute();
    // Only the erasure's own steps remain (until the cleaner), naming nothing but ids.
    expect(new Set(jobs.map((j) => j.type))).toEqual(new Set(['subject.erase']));

    if (ctx.service.store.driver.name === 'sqlite') {
      // Nothing readable in the files themselves: the database, its WAL and shared memory.
      const files = storeFiles(ctx.service.config.dataDir);
      expect(files).toContain(path.join(ctx.service.config.dataDir, 'healthspan.sqlite'));
      expect(findInFiles(files, [s.subject, ...s.submissions, s.lab])).toEqual([]);
      // The scan can find what it looks for: the kept subject is still there.
      expect(findInFiles(files.slice(0, 1), [other.subject, other.lab])).toHaveLength(2);
    }
  });

  it('answers an unknown subject with a completed erasure of nothing, and another account’s erasure with 404', async () => {
    const account = await createAccount(ctx.service);
    const stranger = await createAccount(ctx.service);
    const res = await erase(account, `never seen ${randomUUID()} / ü`);
    expect(res.status).toBe(202);
    expect(res.json.status).toBe('completed');
    const erasureId = String(res.json.erasureId);
    const mine = await getJson(ctx.service, `/v1/erasures/${erasureId}`, auth(account));
    expect(mine.json).toMatchObject({
      status: 'completed',
      counts: { submissions: 0, results: 0, artifacts: 0 },
    });
    const theirs = await getJson(ctx.service, `/v1/erasures/${erasureId}`, auth(stranger));
    expect(theirs.status).toBe(404);
    expect(errorOf(theirs.json).code).toBe('NOT_FOUND');
    expect((await getJson(ctx.service, '/v1/erasures/not-a-uuid', auth(account))).status).toBe(404);
    const tooLong = await erase(account, 'x'.repeat(513));
    expect(tooLong.status).toBe(400);
    expect(errorOf(tooLong.json).code).toBe('VALIDATION_ERROR');
    const noKey = await fetch(`${ctx.service.url}/v1/subjects/anyone`, { method: 'DELETE' });
    expect(noKey.status).toBe(401);
  });

  it('ends a submission still in the pipeline erased, never brought back by its running steps', async () => {
    const account = await createAccount(ctx.service);
    const s = subjectStrings();
    const { submissionId } = await submit(account, s.subject, s.submissions[0]!, s.lab);
    // Erased while its steps are queued or running.
    const res = await erase(account, s.subject);
    expect(res.status).toBe(202);
    await erasureDone(account, String(res.json.erasureId));
    await queueIdle();
    const db = ctx.service.store.driver.db;
    expect(await db.selectFrom('submissions').select('id').where('id', '=', submissionId).execute()).toEqual(
      [],
    );
    expect(
      await db.selectFrom('results').select('id').where('submission_id', '=', submissionId).execute(),
    ).toEqual([]);
    expect(
      await db.selectFrom('artifacts').select('id').where('submission_id', '=', submissionId).execute(),
    ).toEqual([]);
    expect((await getJson(ctx.service, `/v1/submissions/${submissionId}`, auth(account))).status).toBe(404);
  });

  it('keeps ingest and erasure of one subject consistent when they race', async () => {
    const account = await createAccount(ctx.service);
    const s = subjectStrings();
    const first = await submit(account, s.subject, `${s.submissions[0]}-0`, s.lab);
    const racing = Promise.all(
      Array.from({ length: 6 }, (_, i) => submit(account, s.subject, `${s.submissions[0]}-${i + 1}`, s.lab)),
    );
    const erasures = await Promise.all([erase(account, s.subject), erase(account, s.subject)]);
    const accepted = [first, ...(await racing)];
    for (const e of erasures) {
      expect(e.status).toBe(202);
      await erasureDone(account, String(e.json.erasureId));
    }
    await queueIdle();
    // Whatever arrived after the erasures is still there, whole; a new request erases it.
    const survivors = await ctx.service.store.driver.db
      .selectFrom('submissions')
      .select('id')
      .where('tenant_id', '=', account.tenantId)
      .execute();
    expect(survivors.map((r) => r.id)).not.toContain(first.submissionId);
    const again = await erase(account, s.subject);
    expect(again.json.erasureId).not.toBe(erasures[0]!.json.erasureId);
    await erasureDone(account, String(again.json.erasureId));
    await queueIdle();
    const done = await getJson(ctx.service, `/v1/erasures/${String(again.json.erasureId)}`, auth(account));
    expect((done.json.counts as { submissions: number }).submissions).toBe(survivors.length);
    for (const { submissionId } of accepted) {
      expect((await getJson(ctx.service, `/v1/submissions/${submissionId}`, auth(account))).status).toBe(404);
    }
    // No result, report or event outlived its submission.
    const db = ctx.service.store.driver.db;
    const orphans = await db
      .selectFrom('results')
      .leftJoin('submissions', 'submissions.id', 'results.submission_id')
      .select('results.id')
      .where('submissions.id', 'is', null)
      .execute();
    expect(orphans).toEqual([]);
  });

  it('returns the pending erasure to a repeated request, and a new one once new data arrived', async () => {
    // A service without a worker: erasures stay pending.
    const idle = await startTestService({ RATE_LIMIT_PER_MINUTE: '0', WORKER_CONCURRENCY: '0' }, 'api');
    try {
      const account = await createAccount(idle);
      const s = subjectStrings();
      const post = (id: string) =>
        postSubmission(
          idle,
          bodyFor(account, (b) => {
            b.partnerSubjectId = s.subject;
            b.partnerSubmissionId = id;
          }),
          { apiKey: account.apiKey },
        );
      expect((await post(s.submissions[0]!)).status).toBe(202);
      const del = async () =>
        (
          await fetch(`${idle.url}/v1/subjects/${encodeURIComponent(s.subject)}`, {
            method: 'DELETE',
            headers: auth(account),
          })
        ).json() as Promise<Record<string, unknown>>;
      const one = await del();
      expect(one.status).toBe('pending');
      const two = await del();
      expect(two.erasureId).toBe(one.erasureId);
      expect((await post(s.submissions[1]!)).status).toBe(202);
      const three = await del();
      expect(three.status).toBe('pending');
      expect(three.erasureId).not.toBe(one.erasureId);
    } finally {
      await idle.stop();
    }
  });
});

describe('erasure from the operator CLI', () => {
  it('erases a subject and shows the erasure', async () => {
    const account = await createAccount(ctx.service);
    const s = subjectStrings();
    const { submissionId } = await submit(account, s.subject, s.submissions[0]!, s.lab);
    await completed(account, submissionId);
    const erased = await cliFor(ctx.service, [
      'subjects',
      'erase',
      '--tenant',
      account.tenantId,
      '--subject',
      s.subject,
    ]);
    expect(erased.code).toBe(0);
    expect(erased.json).toMatchObject({ partnerSubjectId: s.subject, status: 'pending' });
    const erasureId = String(erased.json!.erasureId);
    await waitUntil(
      async () => (await cliFor(ctx.service, ['erasures', 'show', erasureId])).json?.status === 'completed',
      60_000,
      'the erasure completed',
    );
    const shown = await cliFor(ctx.service, ['erasures', 'show', erasureId]);
    expect(shown.json).toMatchObject({ erasureId, counts: { submissions: 1, results: 1 } });
    expect((await cliFor(ctx.service, ['erasures', 'show', randomUUID()])).code).toBe(1);
    expect((await getJson(ctx.service, `/v1/submissions/${submissionId}`, auth(account))).status).toBe(404);
  });
});

it('runs on the store under test', () => {
  expect(['sqlite', 'postgres']).toContain(testStoreKind());
});
