import { spawn } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { PermanentJobError } from '../../src/queue/types.js';
import type { Worker } from '../../src/queue/worker.js';
import { unpackJson } from '../../src/store/packing/packed-json.js';
import { SkewedClock } from '../helpers/clock.js';
import { startPipelineWorker, waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  startTestService,
  type TestService,
} from '../helpers/service.js';

const running: Array<TestService | Worker> = [];
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.stop();
});

async function detailOf(service: TestService, apiKey: string, id: string) {
  return (await getJson(service, `/v1/submissions/${id}`, { 'x-api-key': apiKey })).json as {
    status: string;
    resultId?: string;
    jobs: Array<{
      type: string;
      status: string;
      attempts: number;
      failedAt: string | null;
      errorSummary: string | null;
      acceptedAt: string;
      slaDeadlineAt: string | null;
      slaBreached: boolean;
    }>;
  };
}

describe('pipeline failures', () => {
  it('leaves a checked submission `validated` while its score step waits for a worker that runs it', async () => {
    const service = await startTestService({ WORKER_CONCURRENCY: '0', RATE_LIMIT_PER_MINUTE: '0' });
    running.push(service);
    const account = await createAccount(service);
    const validator = startPipelineWorker(service, () => ({}), { only: ['pipeline.ingest_validate'] });
    running.push(validator);
    const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    const id = String(res.json.submissionId);
    const waiting = await waitUntil(async () => {
      const d = await detailOf(service, account.apiKey, id);
      return d.jobs.some((j) => j.type === 'pipeline.score') && d;
    });
    expect(waiting.status).toBe('validated');
    expect(waiting.jobs.map((j) => [j.type, j.status])).toEqual([
      ['pipeline.ingest_validate', 'completed'],
      ['pipeline.score', 'pending'],
    ]);
    running.push(startPipelineWorker(service));
    const done = await waitUntil(async () => {
      const d = await detailOf(service, account.apiKey, id);
      return d.status === 'completed' && d;
    });
    expect(done.jobs.every((j) => j.status === 'completed')).toBe(true);
  });

  it('retries a step that throws with backoff, then fails it and the submission with a plain summary', async () => {
    const service = await startTestService({
      WORKER_CONCURRENCY: '0',
      JOB_MAX_ATTEMPTS: '3',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    running.push(service);
    const account = await createAccount(service);
    const attemptTimes: number[] = [];
    running.push(
      startPipelineWorker(
        service,
        (defs) => ({
          'pipeline.score': {
            ...defs['pipeline.score'],
            run: async () => {
              attemptTimes.push(Date.now());
              throw new Error('TypeError at score.ts:42 (internal detail)');
            },
          },
        }),
        { retryBaseMs: 100 },
      ),
    );
    const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    const id = String(res.json.submissionId);
    const detail = await waitUntil(async () => {
      const d = await detailOf(service, account.apiKey, id);
      return d.status === 'failed' && d;
    });
    const score = detail.jobs.find((j) => j.type === 'pipeline.score')!;
    expect(score).toMatchObject({
      status: 'failed',
      attempts: 3,
      errorSummary: 'Scoring failed because of an internal error.',
    });
    expect(score.failedAt).not.toBeNull();
    expect(detail.resultId).toBeUndefined();
    expect(JSON.stringify(detail)).not.toMatch(/TypeError|score\.ts/);
    expect(attemptTimes).toHaveLength(3);
    expect(attemptTimes[1]! - attemptTimes[0]!).toBeGreaterThanOrEqual(50);
    expect(attemptTimes[2]! - attemptTimes[1]!).toBeGreaterThanOrEqual(100);
  });

  it('hands the loaded submission along a chained run, and starts a retried step from the store', async () => {
    const service = await startTestService({ WORKER_CONCURRENCY: '0', RATE_LIMIT_PER_MINUTE: '0' });
    running.push(service);
    const account = await createAccount(service);
    const handed: Array<[string, number, boolean]> = [];
    const db = service.store.driver.db;
    running.push(
      startPipelineWorker(
        service,
        (defs) => ({
          'pipeline.score': {
            ...defs['pipeline.score'],
            run: async (job, ctx) => {
              handed.push([job.type, job.attempt, ctx.handOver !== undefined]);
              if (job.attempt === 1) {
                // The stored submission changes after the chain handed this attempt its copy;
                // the retry must see the store's.
                const row = await db
                  .selectFrom('submissions')
                  .select('normalised_body')
                  .where('id', '=', job.submissionId!)
                  .executeTakeFirstOrThrow();
                const changed = JSON.parse(unpackJson(row.normalised_body));
                changed.options.requestedOutcomes = ['wellbeing.renal'];
                await db
                  .updateTable('submissions')
                  .set({
                    normalised_body: service.store.driver.storedDocument(
                      JSON.stringify(changed),
                      'submission',
                    ),
                  })
                  .where('id', '=', job.submissionId!)
                  .execute();
                throw new Error('the first attempt fails');
              }
              return defs['pipeline.score'].run(job, ctx);
            },
          },
          'pipeline.render_reports': {
            ...defs['pipeline.render_reports'],
            run: async (job, ctx) => {
              handed.push([job.type, job.attempt, ctx.handOver !== undefined]);
              return defs['pipeline.render_reports'].run(job, ctx);
            },
          },
        }),
        { retryBaseMs: 20 },
      ),
    );
    const res = await postSubmission(
      service,
      bodyFor(account, (b) => {
        b.options.requestedOutputs = ['score', 'json'];
      }),
      { apiKey: account.apiKey },
    );
    const id = String(res.json.submissionId);
    const detail = await waitUntil(async () => {
      const d = await detailOf(service, account.apiKey, id);
      return d.status === 'completed' && d;
    });
    expect(handed).toEqual([
      ['pipeline.score', 1, true],
      ['pipeline.score', 2, false],
      ['pipeline.render_reports', 1, true],
    ]);
    const result = await getJson(service, `/v1/results/${detail.resultId}`, { 'x-api-key': account.apiKey });
    expect(result.json.outcome).toMatchObject({ outcomeId: 'wellbeing.renal' });
    expect(result.json.outcomes).toBeUndefined();
  });

  // The door's record of its checks names other checks (an older, laxer version of the
  // service), or there is none (a row from before it was recorded): the checks run in full.
  it.each([
    ['checks an older version ran', 'checks:an-older-version'],
    ['no record of the door’s checks', null],
  ])('rejects a stored submission that fails its ingest-time checks (%s)', async (_case, doorChecks) => {
    const service = await startTestService({ WORKER_CONCURRENCY: '0', RATE_LIMIT_PER_MINUTE: '0' });
    running.push(service);
    const account = await createAccount(service);
    const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    const id = String(res.json.submissionId);
    // As if the stored body had been accepted by that version.
    const broken = bodyFor(account, (b) => b.markers.pop());
    await service.store.driver.db
      .updateTable('submissions')
      .set({
        original_body: service.store.driver.storedDocument(JSON.stringify(broken), 'submission'),
        door_checks: doorChecks,
        door_outcome: doorChecks && 'passed',
      })
      .where('id', '=', id)
      .execute();
    running.push(startPipelineWorker(service));
    const detail = await waitUntil(async () => {
      const d = await detailOf(service, account.apiKey, id);
      return d.status === 'rejected' && d;
    });
    expect(detail.jobs).toHaveLength(1);
    expect(detail.jobs[0]).toMatchObject({ status: 'failed', attempts: 1 });
    expect(detail.jobs[0]!.errorSummary).toMatch(/panel/);
  });

  it('completes with unavailable artifacts when a renderer keeps failing', async () => {
    const service = await startTestService({
      WORKER_CONCURRENCY: '0',
      JOB_MAX_ATTEMPTS: '2',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    running.push(service);
    const account = await createAccount(service);
    running.push(
      startPipelineWorker(service, (defs) => ({
        'pipeline.render_reports': {
          ...defs['pipeline.render_reports'],
          run: async () => {
            throw new PermanentJobError('Preparing the reports failed.');
          },
        },
      })),
    );
    const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    const id = String(res.json.submissionId);
    const detail = await waitUntil(async () => {
      const d = await detailOf(service, account.apiKey, id);
      return d.status === 'completed' && d;
    });
    const result = await getJson(service, `/v1/results/${detail.resultId}`, { 'x-api-key': account.apiKey });
    const items = (result.json.artifacts as { items: Array<{ availability: string; access: unknown }> })
      .items;
    expect(items.map((i) => i.availability)).toEqual(['unavailable', 'unavailable', 'unavailable']);
    expect(items.every((i) => i.access === null)).toBe(true);
  });

  it('marks slaBreached once the deadline passes', async () => {
    const service = await startTestService({ WORKER_CONCURRENCY: '0', RATE_LIMIT_PER_MINUTE: '0' });
    running.push(service);
    const account = await createAccount(service);
    const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    const id = String(res.json.submissionId);
    // The default SLA (300 s) is far off, however slow this machine is.
    const before = (await detailOf(service, account.apiKey, id)).jobs[0]!;
    expect(before.slaBreached).toBe(false);
    expect(Date.parse(before.slaDeadlineAt!) - Date.parse(before.acceptedAt)).toBe(300_000);
    // The API compares the deadline with the real time (the HTTP layer takes no clock): rather
    // than sleep past a short SLA and race the request against it, the deadline is moved into
    // the past, which is what the passing of time does to it.
    await service.store.driver.db
      .updateTable('jobs')
      .set({ sla_deadline_at: new Date(Date.now() - 1).toISOString() })
      .where('submission_id', '=', id)
      .execute();
    const after = (await detailOf(service, account.apiKey, id)).jobs[0]!;
    expect(after).toMatchObject({ status: 'pending', slaBreached: true });
  });

  // A crash moment of src/store/sqlite/README.md, on both stores.
  it('a worker process killed mid-step loses only its uncommitted attempt: the job is rescued and the submission finishes with exactly one result', async () => {
    const service = await startTestService({
      WORKER_CONCURRENCY: '0',
      JOB_LEASE_SECONDS: '30',
      RATE_LIMIT_PER_MINUTE: '0',
    });
    running.push(service);
    const account = await createAccount(service);
    const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    const id = String(res.json.submissionId);

    const child = spawn(
      process.execPath,
      [path.resolve(import.meta.dirname, '../fixtures/stalling-worker.mjs')],
      {
        env: {
          ...process.env,
          DATA_DIR: service.config.dataDir,
          DATABASE_URL: service.config.databaseUrl ?? '',
          STALL_TYPE: 'pipeline.score',
          // Its heartbeat keeps the lease while it stalls; once it is killed the lease runs out
          // 30 s later on the real clock, or at once on the rescuer's clock below.
          JOB_LEASE_SECONDS: '30',
          LOG_LEVEL: 'silent',
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const lines = readline.createInterface({ input: child.stdout! });
    const mid = await new Promise<{ midStep: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the worker never reached the step')), 60_000);
      lines.on('line', (line) => {
        const msg = JSON.parse(line) as { midStep?: string };
        if (msg.midStep) {
          clearTimeout(timer);
          resolve(msg as { midStep: string });
        }
      });
    });
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));

    const killed = await service.store.driver.db
      .selectFrom('jobs')
      .selectAll()
      .where('id', '=', mid.midStep)
      .executeTakeFirstOrThrow();
    expect(killed).toMatchObject({ status: 'running', attempts: 1, type: 'pipeline.score' });
    expect(
      await service.store.driver.db
        .selectFrom('results')
        .selectAll()
        .where('submission_id', '=', id)
        .execute(),
    ).toHaveLength(0);

    // A fresh worker rescues the expired lease and finishes the pipeline. It lives a minute
    // ahead (an injected clock), so the dead worker's 30 s lease has run out for it already,
    // while its own leases (10 minutes) cannot run out however slow this machine is.
    const ahead = new SkewedClock();
    ahead.advance(60_000);
    running.push(startPipelineWorker(service, undefined, { rescueEveryMs: 250, clock: ahead.date }));
    const detail = await waitUntil(async () => {
      const d = await detailOf(service, account.apiKey, id);
      return d.status === 'completed' && d;
    }, 60_000);
    const results = await service.store.driver.db
      .selectFrom('results')
      .selectAll()
      .where('submission_id', '=', id)
      .execute();
    expect(results).toHaveLength(1);
    expect(detail.resultId).toBe(results[0]!.id);
    const attempts = Object.fromEntries(detail.jobs.map((j) => [j.type, [j.status, j.attempts]]));
    expect(attempts).toEqual({
      'pipeline.ingest_validate': ['completed', 1],
      'pipeline.score': ['completed', 2],
      'pipeline.render_reports': ['completed', 1],
    });
    // Generous overall deadlines: a child process to start and a pipeline to run on a loaded machine.
  }, 120_000);
});
