import { Writable } from 'node:stream';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import {
  clientConfig,
  connectPostgres,
  describePostgres,
  PG_TIMEOUTS,
} from '../../src/store/postgres/connect.js';
import { PostgresJobListener } from '../../src/store/postgres/job-listener.js';
import { JOBS_CHANNEL } from '../../src/store/postgres/jobs-channel.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  errorOf,
  getJson,
  postSubmission,
  startTestService,
  type TestService,
} from '../helpers/service.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});
afterAll(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function database(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  cleanup.push(() => db.drop());
  return db;
}

async function proxyFor(db: TestDatabase): Promise<TcpProxy> {
  const proxy = await TcpProxy.open(db.url);
  cleanup.push(() => proxy.stop());
  return proxy;
}

async function serviceOn(url: string, env: Record<string, string> = {}): Promise<TestService> {
  const service = await startTestService({ DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '0', ...env });
  cleanup.push(() => service.stop());
  return service;
}

describe('PostgreSQL going away', () => {
  it('describes the database without its credentials', () => {
    expect(describePostgres('postgres://app:s3cret@db.internal:6432/health?sslmode=require&password=x')).toBe(
      'postgresql://db.internal:6432/health',
    );
    expect(describePostgres('postgresql://user@localhost/healthspan')).toBe(
      'postgresql://localhost:5432/healthspan',
    );
    expect(describePostgres('postgres://u:p@[::1')).toBe('postgresql');
  });

  it('answers errors in the envelope while the database is down, and recovers without a restart', async () => {
    const db = await database();
    const proxy = await proxyFor(db);
    // A job whose completion could not be committed during the outage runs again once its
    // lease expires: a short lease keeps that wait short.
    const service = await serviceOn(proxy.via(db.url), { RENDER_THREADS: '0', JOB_LEASE_SECONDS: '2' });
    const account = await createAccount(service);
    const before = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    expect(before.status).toBe(202);

    await proxy.stop();
    // Reads, writes and readiness fail fast with an error body; none of them waits for the database.
    const during = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    expect(during.status).toBe(500);
    expect(errorOf(during.json).code).toBe('INTERNAL_ERROR');
    expect(errorOf(during.json).requestId).toEqual(expect.any(String));
    const read = await getJson(service, `/v1/submissions/${String(before.json.submissionId)}`, {
      'x-api-key': account.apiKey,
    });
    expect(read.status).toBe(500);
    expect(errorOf(read.json).code).toBe('INTERNAL_ERROR');
    const ready = await getJson(service, '/ready');
    expect(ready.status).toBe(503);
    expect(errorOf(ready.json).code).toBe('SERVICE_UNAVAILABLE');
    expect(errorOf(ready.json).message).toMatch(/database unavailable/);

    await proxy.start();
    // The same process takes requests again and its worker finishes what was accepted before.
    const after = await waitUntil(async () => {
      const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
      return res.status === 202 && res;
    });
    expect(after.json.status).toBe('accepted');
    // Ready again once the worker's next read of the queue succeeds (its poll is 1 s).
    await waitUntil(async () => (await getJson(service, '/ready')).status === 200, 10_000, 'readiness');
    for (const id of [before.json.submissionId, after.json.submissionId]) {
      await waitUntil(
        async () => {
          const res = await getJson(service, `/v1/submissions/${String(id)}`, {
            'x-api-key': account.apiKey,
          });
          return res.json.status === 'completed';
        },
        20_000,
        `submission ${String(id)} to complete`,
      );
    }
    // The outage was logged without the connection string.
    expect(service.logs.join('')).not.toContain(db.url);
  });

  it('survives the server closing its idle connections (pool error events), and carries on', async () => {
    const db = await database();
    const service = await serviceOn(db.url, { WORKER_CONCURRENCY: '0' });
    const account = await createAccount(service);
    expect((await postSubmission(service, bodyFor(account), { apiKey: account.apiKey })).status).toBe(202);
    const admin = connectPostgres(db.url, 1, pino({ level: 'silent' }));
    cleanup.push(() => admin.db.destroy());
    await sql`
      select pg_terminate_backend(pid) from pg_stat_activity
      where datname = current_database() and pid <> pg_backend_pid()`.execute(admin.db);
    await waitUntil(async () => service.logs.join('').includes('an idle PostgreSQL connection failed'));
    const res = await waitUntil(async () => {
      const r = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
      return r.status === 202 && r;
    });
    expect(res.json.status).toBe('accepted');
  });

  it('replaces a job listener whose connection stopped answering, and is woken on the new one', async () => {
    const db = await database();
    const proxy = await proxyFor(db);
    // The listener wakes once per connection it makes, and once per notification. Its log tells
    // the two apart: a short query timeout may also drop a healthy connection on a loaded
    // machine, so the test counts connections rather than expecting an exact number of wakes.
    const lines: string[] = [];
    const listener = new PostgresJobListener(
      clientConfig(proxy.via(db.url), { ...PG_TIMEOUTS, queryMs: 300 }),
      pino(
        { level: 'info' },
        new Writable({
          write(chunk, _enc, cb) {
            lines.push(String(chunk));
            cb();
          },
        }),
      ),
      { minRetryMs: 50, maxRetryMs: 200, pingMs: 200 },
    );
    let wakes = 0;
    const stop = listener.start(() => {
      wakes += 1;
    });
    cleanup.push(stop);
    const count = (text: string) => lines.filter((l) => l.includes(text)).length;
    const connections = () => 1 + count('the job listener is connected again');
    const notifications = () => wakes - Math.min(wakes, connections());
    await waitUntil(async () => wakes >= 1, 20_000, 'the listener to connect');
    const connectedBefore = connections();
    const lostBefore = count('lost its PostgreSQL connection');
    proxy.freeze();
    // The ping times out on the silent connection; a new one is opened (and wakes once).
    await waitUntil(
      async () => count('lost its PostgreSQL connection') > lostBefore && connections() > connectedBefore,
      20_000,
      'the listener to reconnect',
    );
    expect(notifications()).toBe(0);
    const { db: kysely } = connectPostgres(db.url, 1, pino({ level: 'silent' }));
    cleanup.push(() => kysely.destroy());
    // A notification sent while the listener happens to be reconnecting is lost (the reconnect
    // wake covers it in the service): notify until one arrives.
    await waitUntil(
      async () => {
        if (notifications() > 0) return true;
        await sql`select pg_notify(${JOBS_CHANNEL}, '')`.execute(kysely);
        return false;
      },
      20_000,
      'the notification',
    );
  });

  it('logs a failing statement without the row PostgreSQL quotes in its error detail', async () => {
    const db = await database();
    const { db: kysely } = connectPostgres(db.url, 1, pino({ level: 'silent' }));
    cleanup.push(() => kysely.destroy());
    await sql`create table t (a text not null, b text not null)`.execute(kysely);
    const error = await sql`insert into t values ('glucose 7.9 mmol/L', null)`.execute(kysely).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(String((error as { detail?: string }).detail)).toContain('glucose');
    const lines: string[] = [];
    const logger = createLogger(
      'info',
      new Writable({
        write(chunk, _enc, cb) {
          lines.push(String(chunk));
          cb();
        },
      }),
    );
    logger.error({ err: error }, 'request failed');
    expect(lines.join('')).toContain('23502');
    expect(lines.join('')).not.toContain('glucose');
  });

  it('drops a connection whose query timed out on the client, so the next query uses a fresh one', async () => {
    const db = await database();
    const proxy = await proxyFor(db);
    // One connection in the pool: without dropping it, the next query would queue behind the
    // unanswered one and time out as well.
    const { db: kysely } = connectPostgres(proxy.via(db.url), 1, pino({ level: 'silent' }), {
      ...PG_TIMEOUTS,
      queryMs: 500,
    });
    cleanup.push(() => kysely.destroy());
    // A healthy query may also miss a 500 ms timeout on a loaded machine: those are asked until
    // answered. Only the frozen connection is certain to time out, and if it stayed in the pool
    // every later query would queue behind it and time out too, so the last wait would fail.
    const answered = <T>(query: () => Promise<T>, what: string) =>
      waitUntil(async () => query().catch(() => undefined), 20_000, what);
    const one = await answered(() => sql<{ one: number }>`select 1 as one`.execute(kysely), 'select 1');
    expect(one.rows).toEqual([{ one: 1 }]);
    proxy.freeze();
    await expect(sql`select 2`.execute(kysely)).rejects.toThrow('Query read timeout');
    const three = await answered(
      () => sql<{ three: number }>`select 3 as three`.execute(kysely),
      'a query on a fresh connection',
    );
    expect(three.rows).toEqual([{ three: 3 }]);
  });
});
