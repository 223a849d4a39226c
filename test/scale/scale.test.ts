import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { tempDataDir } from '../helpers/dirs.js';
import { cli, type ServiceProcess, serveProcess, stopProcess } from '../helpers/processes.js';
import { TestReceiver } from '../helpers/receiver.js';
import { EXAMPLE_PATH } from '../helpers/service.js';

const SUBMISSIONS = 1000;
/** Of those, sent twice with the same Idempotency-Key, once to each API process, at once. */
const DUPLICATED = 100;

/**
 * Scale-out on PostgreSQL: 2 API and 2 worker processes on one database. Every acknowledged
 * submission completes exactly once, with exactly one result and one delivered result.ready
 * event, and the attempts log shows no job ever ran on two workers at once.
 */
describe('2 API + 2 worker processes on one PostgreSQL database', () => {
  const receiver = new TestReceiver();
  const processes: ServiceProcess[] = [];
  let database: TestDatabase;
  let pool: pg.Pool;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase();
    pool = new pg.Pool({ connectionString: database.url, max: 2 });
    // An idle connection the server closes emits `error` on the pool; the next query reconnects.
    pool.on('error', () => undefined);
    const hook = await receiver.start();
    env = {
      DATABASE_URL: database.url,
      DATA_DIR: tempDataDir(),
      MIGRATE_ON_START: 'false',
      DOWNLOAD_SIGNING_SECRET: 'scale-test-download-secret-0123456789abcdef',
      WEBHOOK_SECRETS_KEY: 'scale-test-webhook-secrets-key-0123456789abcdef',
      WEBHOOK_ALLOW_INSECURE: 'true',
      RATE_LIMIT_PER_MINUTE: '0',
      DATABASE_POOL_SIZE: '4',
      RENDER_THREADS: '1',
    };
    await cli(env, ['migrate']);
    const quick = await cli(env, ['quickstart', '--name', 'Scale']);
    await cli(env, ['webhooks', 'set', '--partner', quick.partnerId as string, '--url', hook]);
    env.PARTNER_ID = quick.partnerId as string;
    env.API_KEY = quick.apiKey as string;
    for (const role of ['api', 'api', 'worker', 'worker'] as const) {
      processes.push(await serveProcess(role, env));
    }
    // Four processes, each given up to 20 s to answer /ready: more than the default hook timeout.
  }, 120_000);
  afterAll(async () => {
    await Promise.all(processes.map((p) => stopProcess(p)));
    await receiver.stop();
    await pool?.end();
    await database?.drop();
  });

  it('completes every acknowledged submission exactly once, with one result and one event each', async () => {
    const apis = processes.filter((p) => p.role === 'api');
    const template = JSON.parse(fs.readFileSync(EXAMPLE_PATH, 'utf8')) as Record<string, unknown> & {
      options: { requestedOutputs: string[] };
    };
    const post = async (api: ServiceProcess, i: number) => {
      const body = {
        ...template,
        partnerId: env.PARTNER_ID,
        partnerSubmissionId: `scale-${i}`,
        // One in ten with all three reports, the rest scores only.
        options: {
          ...template.options,
          requestedOutputs: i % 10 === 0 ? ['score', 'json', 'html', 'pdf'] : ['score'],
        },
      };
      const res = await fetch(`${api.url}/v1/submissions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': env.API_KEY!,
          'idempotency-key': `scale-key-${i}`,
          'x-correlation-id': `scale-${i}`,
        },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(202);
      return ((await res.json()) as { submissionId: string }).submissionId;
    };

    const acknowledged = new Map<number, string>();
    let next = 0;
    await Promise.all(
      Array.from({ length: 24 }, async () => {
        while (next < SUBMISSIONS) {
          const i = next++;
          if (i < DUPLICATED) {
            // The same request to both APIs at once: one submission.
            const [a, b] = await Promise.all([post(apis[0]!, i), post(apis[1]!, i)]);
            expect(a).toBe(b);
            acknowledged.set(i, a);
          } else {
            acknowledged.set(i, await post(apis[i % 2]!, i));
          }
        }
      }),
    );
    const ids = [...acknowledged.values()];
    expect(new Set(ids).size).toBe(SUBMISSIONS);

    const deadline = Date.now() + 120_000;
    for (;;) {
      // The receiver sees a delivery before its worker commits it as delivered: wait for both.
      const { rows } = await pool.query<{ n: string; undelivered: string }>(
        `select (select count(*) from submissions where status <> 'completed') n,
                (select count(*) from webhook_events where status <> 'delivered') undelivered`,
      );
      const pending = Number(rows[0]!.n) + Number(rows[0]!.undelivered);
      if (pending === 0 && receiver.deliveries.length >= SUBMISSIONS) break;
      if (Date.now() > deadline)
        throw new Error(
          `not done: ${rows[0]!.n} submissions, ${rows[0]!.undelivered} undelivered events, ${receiver.deliveries.length} deliveries`,
        );
      await new Promise((r) => setTimeout(r, 200));
    }

    const q = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []) =>
      (await pool.query<T>(text, values)).rows;
    expect(Number((await q<{ n: string }>('select count(*) n from submissions'))[0]!.n)).toBe(SUBMISSIONS);
    const completed = await q<{ id: string }>(
      "select id from submissions where status = 'completed' and id = any($1::uuid[])",
      [ids],
    );
    expect(completed).toHaveLength(SUBMISSIONS);
    const results = await q<{ submission_id: string; n: string }>(
      'select submission_id, count(*) n from results group by submission_id',
    );
    expect(results).toHaveLength(SUBMISSIONS);
    expect(results.every((r) => Number(r.n) === 1)).toBe(true);

    // One event per result, each delivered once, and nothing else delivered.
    const events = await q<{ id: string; result_id: string; status: string }>(
      'select id, result_id, status from webhook_events',
    );
    expect(events).toHaveLength(SUBMISSIONS);
    expect(events.every((e) => e.status === 'delivered')).toBe(true);
    const delivered = receiver.deliveries.map((d) => d.headers['x-healthspan-event-id'] as string);
    expect(delivered).toHaveLength(SUBMISSIONS);
    expect(new Set(delivered)).toEqual(new Set(events.map((e) => e.id)));

    // The attempts log: per job, attempt numbers never taken twice, attempts never overlapping,
    // exactly one completed attempt, and it is the last.
    const attempts = await q<{
      job_id: string;
      attempt: number;
      worker_id: string;
      started_at: string;
      finished_at: string | null;
      outcome: string | null;
    }>(
      'select job_id, attempt, worker_id, started_at, finished_at, outcome from job_attempts order by job_id, started_at',
    );
    const jobs = await q<{ id: string; status: string }>('select id, status from jobs');
    expect(jobs.every((j) => j.status === 'completed')).toBe(true);
    const byJob = new Map<string, typeof attempts>();
    for (const a of attempts) byJob.set(a.job_id, [...(byJob.get(a.job_id) ?? []), a]);
    expect(byJob.size).toBe(jobs.length);
    for (const [jobId, log] of byJob) {
      const counted = log.filter((a) => a.outcome !== 'released').map((a) => a.attempt);
      expect(new Set(counted).size, jobId).toBe(counted.length);
      expect(
        log.filter((a) => a.outcome === 'completed'),
        jobId,
      ).toHaveLength(1);
      expect(log.at(-1)!.outcome, jobId).toBe('completed');
      for (let i = 1; i < log.length; i++) {
        expect(log[i - 1]!.finished_at, jobId).not.toBeNull();
        expect(Date.parse(log[i - 1]!.finished_at!), jobId).toBeLessThanOrEqual(
          Date.parse(log[i]!.started_at),
        );
      }
    }
    // Both worker processes took part.
    expect(new Set(attempts.map((a) => a.worker_id)).size).toBeGreaterThanOrEqual(2);
    // Four job types ran: three steps for report submissions, two for the rest, one delivery each.
    const perType = await q<{ type: string; n: string }>('select type, count(*) n from jobs group by type');
    expect(Object.fromEntries(perType.map((r) => [r.type, Number(r.n)]))).toEqual({
      'pipeline.ingest_validate': SUBMISSIONS,
      'pipeline.score': SUBMISSIONS,
      'pipeline.render_reports': SUBMISSIONS / 10,
      'webhook.deliver': SUBMISSIONS,
    });
    // The test's own deadline for the backlog is 120 s: the default 30 s test timeout cut it
    // short on a loaded machine, before that deadline could say what was left.
  }, 240_000);
});
