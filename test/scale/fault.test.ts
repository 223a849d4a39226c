import { type ChildProcess, execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { SUBMISSION_JOB_TYPES } from '../../src/domain/statuses.js';
import { waitUntil } from '../helpers/pipeline.js';
import { PrivatePostgres } from '../helpers/private-postgres.js';
import { exampleBody } from '../helpers/service.js';

/**
 * Issue 7: a worker killed with SIGKILL mid-job and PostgreSQL restarted under load. Real
 * processes (`bin/healthspan-admin serve --role api|worker`), a real PostgreSQL cluster of this test's
 * own (so restarting it disturbs no other test file), and a client that keeps submitting
 * throughout. The API must answer every request (an error in the envelope during the outage,
 * never a hang), recover without being restarted, and every submission it acknowledged with a
 * 202 must end completed with exactly one result. The processes run the build in dist/ (`npm test`
 * builds first; run `npm run build` before running this file alone).
 */

const BIN = path.resolve(import.meta.dirname, '../../bin/healthspan-admin');
const exec = promisify(execFile);

/** A request that has not been answered after this long hangs: the test fails. */
const REQUEST_TIMEOUT_MS = 10_000;
/** Parallel client loops, and the pause between one loop's requests: a steady, modest load. */
const CLIENTS = 3;
const PAUSE_MS = 40;
const SECRET = 'fault-test-secret-0123456789abcdef-0123456789';

interface Proc {
  name: string;
  child: ChildProcess;
  /** stdout and stderr lines, read continuously (a full pipe would block the process's logger). */
  lines: string[];
  exited: Promise<void>;
}

interface Outcome {
  key: string;
  body: string;
  correlationId: string;
  startedAt: number;
  endedAt: number;
  /** HTTP status; 'timeout' when unanswered after REQUEST_TIMEOUT_MS, 'network' when the connection failed. */
  status: number | 'timeout' | 'network';
  submissionId?: string;
  replayed?: boolean;
  error?: { code?: unknown; message?: unknown; requestId?: unknown };
  /** Why the answer is not what the contract says (not JSON, no envelope…), if it is not. */
  malformed?: string;
}

interface ReadyProbe {
  at: number;
  status: number | 'timeout' | 'network';
  code?: unknown;
}

const procs: Proc[] = [];
let cluster: PrivatePostgres | undefined;
let db: pg.Pool | undefined;
let dataDir: string | undefined;
/** The client loops and the readiness probe run while these hold (afterAll clears them). */
const running = { load: true, probe: true };
const outcomes: Outcome[] = [];
const probes: ReadyProbe[] = [];

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: cluster!.url,
    DATA_DIR: dataDir!,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'info',
    DOWNLOAD_SIGNING_SECRET: SECRET,
    WEBHOOK_SECRETS_KEY: SECRET,
    RATE_LIMIT_PER_MINUTE: '0',
    // A killed worker's jobs are rescued once their lease expires (plus the 5 s rescue sweep).
    JOB_LEASE_SECONDS: '3',
    MIGRATE_ON_START: 'false',
    DATABASE_POOL_SIZE: '5',
    ...extra,
  };
}

async function cli(args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await exec(process.execPath, [BIN, ...args], {
    env: env({ LOG_LEVEL: 'silent' }),
    timeout: 30_000,
  });
  return JSON.parse(stdout.trim()) as Record<string, unknown>;
}

function spawnServe(name: string, role: 'api' | 'worker'): Proc {
  const child = spawn(process.execPath, [BIN, 'serve', '--role', role], {
    env: env(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    readline.createInterface({ input: stream }).on('line', (line) => lines.push(line));
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const proc = { name, child, lines, exited };
  procs.push(proc);
  return proc;
}

function alive(proc: Proc): boolean {
  return proc.child.exitCode === null && proc.child.signalCode === null;
}

/** The address from the process's `healthspan listening` log line. */
async function listening(proc: Proc): Promise<string> {
  return waitUntil(
    async () => {
      if (!alive(proc)) throw new Error(`${proc.name} exited at start:\n${proc.lines.join('\n')}`);
      for (const line of proc.lines) {
        if (!line.includes('healthspan listening')) continue;
        const { port } = JSON.parse(line) as { port: number };
        return `http://127.0.0.1:${port}`;
      }
      return undefined;
    },
    20_000,
    `${proc.name} to listen`,
  );
}

async function query<R extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<R[]> {
  return (await db!.query<R>(text, values)).rows;
}

/** GET or POST with a time limit; a request never answered within it counts as a hang. */
async function request(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number | 'timeout' | 'network'; text: string; headers?: Headers }> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { status: res.status, text: await res.text(), headers: res.headers };
  } catch (error) {
    const name = (error as { name?: string }).name;
    return { status: name === 'TimeoutError' ? 'timeout' : 'network', text: String(error) };
  }
}

/** An error answer must be JSON `{error: {code, message, requestId}}`; returns what is wrong, if anything. */
function envelopeProblem(text: string): { error?: Outcome['error']; malformed?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { malformed: `not JSON: ${text.slice(0, 200)}` };
  }
  const error = (parsed as { error?: Outcome['error'] } | null)?.error;
  if (
    !error ||
    typeof error.code !== 'string' ||
    typeof error.message !== 'string' ||
    typeof error.requestId !== 'string' ||
    error.requestId === ''
  ) {
    return { error, malformed: `not the error envelope: ${text.slice(0, 200)}` };
  }
  return { error };
}

async function submit(
  apiUrl: string,
  apiKey: string,
  o: Pick<Outcome, 'key' | 'body' | 'correlationId'>,
): Promise<Outcome> {
  const startedAt = Date.now();
  const res = await request(`${apiUrl}/v1/submissions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-api-key': apiKey,
      'idempotency-key': o.key,
      'x-correlation-id': o.correlationId,
    },
    body: o.body,
  });
  const outcome: Outcome = { ...o, startedAt, endedAt: Date.now(), status: res.status };
  if (res.status === 202) {
    try {
      const json = JSON.parse(res.text) as { submissionId?: unknown; status?: unknown };
      if (typeof json.submissionId !== 'string' || json.status !== 'accepted') {
        outcome.malformed = `202 without a submission: ${res.text.slice(0, 200)}`;
      } else {
        outcome.submissionId = json.submissionId;
        outcome.replayed = res.headers?.get('idempotent-replayed') === 'true';
      }
    } catch {
      outcome.malformed = `202 with a body that is not JSON: ${res.text.slice(0, 200)}`;
    }
  } else if (typeof res.status === 'number') {
    Object.assign(outcome, envelopeProblem(res.text));
  }
  return outcome;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

afterAll(async () => {
  running.load = false;
  running.probe = false;
  // Whatever is left, even after a failure: no process outlives the test.
  for (const proc of procs) if (alive(proc)) proc.child.kill('SIGKILL');
  await Promise.all(procs.map((p) => Promise.race([p.exited, sleep(5_000)])));
  await db?.end().catch(() => {});
  // FAULT_TEST_LOG_DIR=dir keeps every process's log, the server's and the requests' timeline.
  const logDir = process.env.FAULT_TEST_LOG_DIR;
  if (logDir) {
    fs.mkdirSync(logDir, { recursive: true });
    for (const p of procs) fs.writeFileSync(path.join(logDir, `${p.name}.log`), p.lines.join('\n'));
    fs.writeFileSync(path.join(logDir, 'postgresql.log'), cluster?.log() ?? '');
    fs.writeFileSync(
      path.join(logDir, 'timeline.txt'),
      [
        ...outcomes.map(
          (o) => `${o.startedAt} ${o.endedAt} ${o.key} ${o.status} ${String(o.error?.code ?? '')}`,
        ),
        ...probes.map((p) => `${p.at} ready ${p.status}`),
      ].join('\n'),
    );
  }
  await cluster?.destroy();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('fault: a worker SIGKILLed mid-job and PostgreSQL restarted under load', () => {
  it('answers every request (errors in the envelope while down), recovers in place, and loses nothing acknowledged', async () => {
    // In the test, not in a hook: without initdb and pg_ctl this test fails, it is never skipped.
    cluster = await PrivatePostgres.create();
    await cluster.start();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-fault-'));
    db = new pg.Pool({ connectionString: cluster.url, max: 2, connectionTimeoutMillis: 5_000 });
    // Our own connections die with the server too: an idle one that does must not end the test.
    db.on('error', () => {});
    expect(await cli(['migrate'])).toMatchObject({ applied: expect.arrayContaining(['0001_initial']) });
    const account = (await cli(['quickstart', '--name', 'Fault test'])) as {
      apiKey: string;
      partnerId: string;
    };

    const api = spawnServe('api', 'api');
    const victim = spawnServe('worker-1', 'worker');
    const survivor = spawnServe('worker-2', 'worker');
    const [apiUrl, , survivorUrl] = await Promise.all([
      listening(api),
      listening(victim),
      listening(survivor),
    ]);

    // Readiness of the API, probed throughout.
    const prober = (async () => {
      while (running.probe) {
        const at = Date.now();
        const res = await request(`${apiUrl}/ready`);
        probes.push({
          at,
          status: res.status,
          ...(res.status === 503 ? { code: envelopeProblem(res.text).error?.code } : {}),
        });
        await sleep(100);
      }
    })();

    // The load: valid submissions, a new Idempotency-Key each, until told to stop.
    let sequence = 0;
    const clients = Array.from({ length: CLIENTS }, async (_, c) => {
      while (running.load) {
        sequence += 1;
        const body = exampleBody();
        body.partnerId = account.partnerId;
        body.partnerSubmissionId = `fault-${sequence}`;
        outcomes.push(
          await submit(apiUrl, account.apiKey, {
            key: `fault-${process.pid}-${c}-${sequence}`,
            body: JSON.stringify(body),
            correlationId: `fault-run-${c}-${sequence}`,
          }),
        );
        await sleep(PAUSE_MS);
      }
    });

    // Fault (a): SIGKILL one worker while it holds running jobs.
    const victimLock = `worker-${victim.child.pid}-%`;
    await waitUntil(
      async () =>
        (
          await query<{ n: number }>(
            `select count(*)::int as n from jobs where status = 'running' and locked_by like $1`,
            [victimLock],
          )
        )[0]!.n >= 3,
      20_000,
      'the first worker to hold three running jobs',
    );
    victim.child.kill('SIGKILL');
    await victim.exited;
    // Still `running` under the dead worker's lease: these were cut off mid-job.
    const orphans = (
      await query<{ id: string }>(`select id from jobs where status = 'running' and locked_by like $1`, [
        victimLock,
      ])
    ).map((r) => r.id);
    expect(orphans.length, 'jobs left running by the killed worker').toBeGreaterThan(0);

    // Fault (b1): a fast restart while requests are in flight.
    await sleep(1_000);
    await cluster!.restart({ mode: 'fast' });
    await sleep(1_500);

    // Fault (b2): a crash (immediate stop, no checkpoint: the WAL is replayed) and ~2 s down.
    const outageStart = Date.now();
    await cluster!.stop({ mode: 'immediate' });
    await waitUntil(
      async () => probes.some((p) => p.at > outageStart && p.status === 503),
      10_000,
      'the API to report not ready',
    );
    await sleep(1_500);
    await cluster!.start();
    const outageEnd = Date.now();

    // The same API process accepts again, and is ready again.
    await waitUntil(
      async () => outcomes.some((o) => o.startedAt > outageEnd && o.status === 202),
      20_000,
      'a 202 after the restart',
    );
    await waitUntil(
      async () => probes.some((p) => p.at > outageEnd && p.status === 200),
      20_000,
      'the API to be ready again',
    );
    await sleep(1_000);
    running.load = false;
    await Promise.all(clients);
    running.probe = false;
    await prober;

    // Every request was answered: 202, or an error in the envelope.
    const unanswered = outcomes.filter((o) => o.status === 'timeout' || o.status === 'network');
    expect(
      unanswered.map((o) => `${o.key}: ${o.status}`),
      'requests never answered',
    ).toEqual([]);
    expect(
      outcomes.filter((o) => o.malformed).map((o) => o.malformed),
      'answers outside the contract',
    ).toEqual([]);
    const failed = outcomes.filter((o) => o.status !== 202);
    expect(
      failed
        .filter(
          (o) =>
            !(
              (o.status === 500 && o.error?.code === 'INTERNAL_ERROR') ||
              (o.status === 503 && o.error?.code === 'SERVICE_UNAVAILABLE')
            ),
        )
        .map((o) => `${o.status} ${String(o.error?.code)}`),
      'errors other than the outage’s',
    ).toEqual([]);
    // The outage was observed: at least one request got an envelope error, and /ready said 503.
    expect(failed.length, 'requests answered with an error during the outage').toBeGreaterThan(0);
    expect(probes.some((p) => p.status === 503 && p.code === 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(probes.filter((p) => p.status === 'timeout' || p.status === 'network')).toEqual([]);
    expect(probes.at(-1)?.status).toBe(200);
    // The API was never restarted: the process started before the faults still runs (its pid
    // answered before, during and after), and it started listening once.
    expect(
      alive(api),
      `the API process (pid ${api.child.pid}) died:\n${api.lines.slice(-20).join('\n')}`,
    ).toBe(true);
    expect(api.lines.filter((l) => l.includes('healthspan listening'))).toHaveLength(1);
    expect(alive(survivor), `the surviving worker died:\n${survivor.lines.slice(-20).join('\n')}`).toBe(true);

    // A client retries what failed with the same key and body: each gets a 202, a replay of the
    // original when the failed answer's commit had in fact succeeded.
    for (const o of failed) {
      const retried = await submit(apiUrl, account.apiKey, o);
      expect(retried.status, `retry of ${o.key}: ${JSON.stringify(retried.error)}`).toBe(202);
      Object.assign(o, { submissionId: retried.submissionId, replayed: retried.replayed });
    }

    // Nothing acknowledged is lost: every 202's submission ends completed, with one result.
    const acknowledged = outcomes.map((o) => o.submissionId!);
    expect(acknowledged.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(acknowledged).size, 'one submission per Idempotency-Key').toBe(outcomes.length);
    // Every submission stored, acknowledged or not, must finish; `failed` and `rejected` are final.
    let statuses: Array<{ status: string; n: number }> = [];
    await waitUntil(
      async () => {
        statuses = await query('select status, count(*)::int as n from submissions group by status');
        if (statuses.some((r) => r.status === 'failed' || r.status === 'rejected')) return true;
        return statuses.length === 1 && statuses[0]!.status === 'completed';
      },
      60_000,
      'every submission to complete',
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${JSON.stringify(statuses)}`);
    });
    // ...and nothing besides what was acknowledged was stored (each failed request was retried).
    expect(statuses, 'submissions by status').toEqual([{ status: 'completed', n: acknowledged.length }]);

    const submissions = await query<{ id: string; status: string }>(
      'select id, status from submissions where id = any($1::uuid[])',
      [acknowledged],
    );
    expect(submissions).toHaveLength(acknowledged.length);
    expect(submissions.filter((s) => s.status !== 'completed')).toEqual([]);
    const results = await query<{ submission_id: string; n: number }>(
      'select submission_id, count(*)::int as n from results where submission_id = any($1::uuid[]) group by submission_id',
      [acknowledged],
    );
    expect(results).toHaveLength(acknowledged.length);
    expect(results.filter((r) => r.n !== 1)).toEqual([]);
    const artifacts = await query<{ availability: string; n: number }>(
      `select availability, count(*)::int as n from artifacts where submission_id = any($1::uuid[]) group by availability`,
      [acknowledged],
    );
    expect(artifacts).toEqual([{ availability: 'available', n: acknowledged.length * 3 }]);
    const jobs = await query<{ type: string; status: string; n: number }>(
      `select type, status, count(*)::int as n from jobs
       where submission_id = any($1::uuid[]) and type = any($2::text[]) group by type, status order by type`,
      [acknowledged, SUBMISSION_JOB_TYPES],
    );
    expect(jobs).toEqual(
      SUBMISSION_JOB_TYPES.map((type) => ({ type, status: 'completed', n: acknowledged.length })).sort(
        (a, b) => (a.type < b.type ? -1 : 1),
      ),
    );
    // The jobs cut off by the SIGKILL ran again elsewhere and completed.
    const rescued = await query<{ status: string; attempts: number }>(
      'select status, attempts from jobs where id = any($1::uuid[])',
      [orphans],
    );
    expect(rescued).toHaveLength(orphans.length);
    expect(rescued.filter((j) => j.status !== 'completed' || j.attempts < 2)).toEqual([]);

    // No two transactions ever waited on each other in a cycle (PostgreSQL would abort one).
    expect(cluster!.log().match(/ERROR: {2}deadlock detected.*\n.*\n.*\n.*/g) ?? [], 'deadlocks').toEqual([]);

    // Both remaining processes report ready on their own.
    await waitUntil(
      async () => (await request(`${survivorUrl}/ready`)).status === 200,
      10_000,
      'worker ready',
    );
    const attempts = await query<{ attempts: number; n: number }>(
      'select attempts, count(*)::int as n from jobs group by attempts order by attempts',
    );
    console.info(
      `fault test: ${outcomes.length} submissions, ${failed.length} answered with an error during the outage ` +
        `(${failed.filter((o) => o.replayed).length} of them had been committed), ${orphans.length} jobs cut off by SIGKILL; ` +
        `jobs by attempts: ${attempts.map((a) => `${a.attempts}×${a.n}`).join(', ')}`,
    );
  }, 150_000);
});
