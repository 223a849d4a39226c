import { afterEach, describe, expect, it } from 'vitest';
import type { NormalisedSubmission } from '../../src/domain/submission/index.js';
import { checksIdentity } from '../../src/ingest/index.js';
import { LoadedSubmission } from '../../src/pipeline/steps/handover.js';
import type { HandlerContext, JobDefinition } from '../../src/queue/types.js';
import type { Worker } from '../../src/queue/worker.js';
import { artifactIdFor } from '../../src/store/ids.js';
import { storedBytes } from '../helpers/artifact-bytes.js';
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
      .set({ original_body: s.store.driver.storedDocument('{"not json', 'submission') })
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
      .set({
        door_checks: null,
        door_outcome: null,
        normalised_body: s.store.driver.storedDocument(JSON.stringify(stale), 'submission'),
      })
      .where('id', '=', id)
      .execute();
    expect(await s.store.system.pipeline.load(db, id)).toMatchObject({ doorCheck: null });
    running.push(startPipelineWorker(s));
    expect((await completed(s, account, id)).status).toBe('completed');
    expect((await s.store.system.pipeline.load(db, id))?.normalisedBody).toBe(normalised);
  });
});

describe('a chained run', () => {
  it('hands the parsed submission from step to step: score and render work from that object, not the stored text', async () => {
    const s = await service();
    const account = await createAccount(s);
    const seen: Array<[string, boolean, NormalisedSubmission | undefined]> = [];
    const handed = (ctx: HandlerContext) =>
      ctx.handOver instanceof LoadedSubmission ? ctx.handOver.facts.submission : undefined;
    let probe: NormalisedSubmission | undefined;
    running.push(
      startPipelineWorker(s, (defs) => ({
        'pipeline.score': {
          ...defs['pipeline.score'],
          run: async (job, ctx) => {
            const given = ctx.handOver;
            if (!(given instanceof LoadedSubmission)) throw new Error('the score step was not handed over');
            seen.push([job.type, true, given.facts.submission]);
            // A probe: what the text says no longer matches the object handed along, so the
            // reports and scores say which of the two the steps used.
            probe = structuredClone(given.facts.submission);
            probe.options.requestedOutcomes = ['wellbeing.renal'];
            probe.partnerSubjectId = 'from-the-handed-object';
            const swapped = new LoadedSubmission({ ...given.facts, submission: probe });
            return defs['pipeline.score'].run(job, { ...ctx, handOver: swapped });
          },
        },
        'pipeline.render_reports': {
          ...defs['pipeline.render_reports'],
          run: async (job, ctx) => {
            seen.push([job.type, ctx.handOver !== undefined, handed(ctx)]);
            return defs['pipeline.render_reports'].run(job, ctx);
          },
        },
      })),
    );
    const id = await submit(s, account);
    const done = await completed(s, account, id);
    const stored = await s.store.system.pipeline.load(s.store.system.db, id);
    // What the check step parsed: the stored normalised text, as a cold start would parse it.
    expect(seen[0]?.[2]).toEqual(JSON.parse(stored!.normalisedBody));
    expect(seen.map(([type, chained]) => [type, chained])).toEqual([
      ['pipeline.score', true],
      ['pipeline.render_reports', true],
    ]);
    // The render step was handed the very object the score step handed on.
    expect(seen[1]?.[2]).toBe(probe);
    const result = await getJson(s, `/v1/results/${done.resultId}`, { 'x-api-key': account.apiKey });
    expect(result.json.outcome).toMatchObject({ outcomeId: 'wellbeing.renal' });
    const json = await storedBytes(s, artifactIdFor(String(done.resultId), 'json'));
    expect(json?.toString('utf8')).toContain('from-the-handed-object');
    expect(stored!.normalisedBody).not.toContain('from-the-handed-object');
  });

  it('starts cold from the stored rows when each step runs on another worker, with the same result', async () => {
    const s = await service();
    const account = await createAccount(s);
    const chainedId = await submit(s, account, ['score', 'json', 'html']);
    const chainedWorker = startPipelineWorker(s);
    const chained = await completed(s, account, chainedId);
    await chainedWorker.stop();

    const cold: Array<[string, boolean]> = [];
    const id = await submit(s, account, ['score', 'json', 'html']);
    const steps = ['pipeline.ingest_validate', 'pipeline.score', 'pipeline.render_reports'] as const;
    for (const [i, step] of steps.entries()) {
      const worker = startPipelineWorker(
        s,
        (defs) => {
          const def: JobDefinition = defs[step];
          const recorded: JobDefinition = {
            ...def,
            run: async (job, ctx) => {
              cold.push([job.type, ctx.handOver !== undefined]);
              return def.run(job, ctx);
            },
          };
          return { [step]: recorded };
        },
        { only: [step] },
      );
      running.push(worker);
      // Until the step is done and its successor waits in the queue for another worker.
      await waitUntil(async () => {
        const d = await detail(s, account, id);
        return i === steps.length - 1 ? d.status === 'completed' : d.jobs[i + 1]?.status === 'pending';
      });
      await worker.stop();
    }
    expect(cold).toEqual(steps.map((step) => [step, false]));
    const read = async (resultId: string | undefined) =>
      (await getJson(s, `/v1/results/${resultId}`, { 'x-api-key': account.apiKey })).json;
    const [a, b] = [await read(chained.resultId), await read((await detail(s, account, id)).resultId)];
    expect(b.outcomes).toEqual(a.outcomes);
    expect(b.outcomes).toBeDefined();
    const artifacts = (r: typeof a) =>
      (r.artifacts as { items: Array<{ type: string; availability: string }> }).items.map((x) => [
        x.type,
        x.availability,
      ]);
    expect(artifacts(b)).toEqual(artifacts(a));
    expect(artifacts(b)).toEqual([
      ['json', 'available'],
      ['html', 'available'],
    ]);
  });
});
