import pg from 'pg';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { MIGRATION_LOCK_KEY, migrateToLatest } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { PG_TIMEOUTS } from '../../src/store/postgres/connect.js';
import { openPostgresDriver } from '../../src/store/postgres/driver.js';
import { createTestDatabase } from '../helpers/database.js';
import { waitUntil } from '../helpers/pipeline.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

describe('PostgreSQL migration lock', () => {
  it('waits for another process’s migration longer than its statement and query timeouts', async () => {
    const database = await createTestDatabase();
    cleanup.push(() => database.drop());
    // "Another process" in the middle of a migration: it holds the migration lock.
    const other = new pg.Client({ connectionString: database.url });
    await other.connect();
    cleanup.push(() => other.end());
    await other.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const { rows } = await other.query<{ at: Date }>('select clock_timestamp() as at');
    const heldSince = rows[0]!.at;

    // This process's pool cuts statements at 200 ms and queries at 400 ms (the service's are
    // 15 s and 20 s): a migration that waited for the lock in one statement would fail.
    const driver = openPostgresDriver(database.url, 2, pino({ level: 'silent' }), {
      ...PG_TIMEOUTS,
      statementMs: 200,
      queryMs: 400,
    });
    cleanup.push(() => driver.close());
    let outcome: { applied: string[] } | { error: unknown } | undefined;
    const migrating = migrateToLatest(driver).then(
      (report) => {
        outcome = report;
      },
      (error: unknown) => {
        outcome = { error };
      },
    );

    // Wait (by the database's clock) until it is still asking for the lock a second after the
    // lock was taken: over twice its query timeout, without having failed or applied anything.
    await waitUntil(
      async () => {
        if (outcome !== undefined) return true;
        const asking = await other.query<{ n: number }>(
          `select count(*)::int as n from pg_stat_activity
           where datname = current_database() and pid <> pg_backend_pid()
             and query like '%pg_try_advisory_lock%' and query_start > $1::timestamptz + interval '1 second'`,
          [heldSince],
        );
        return asking.rows[0]!.n > 0;
      },
      30_000,
      'the migration to keep waiting for the lock',
    );
    expect(outcome).toBeUndefined();
    const tables = await other.query(`select to_regclass('public.tenants') as t`);
    expect(tables.rows[0].t).toBeNull();

    // The other process finishes: this one migrates.
    await other.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
    await migrating;
    expect(outcome).toEqual({ applied: Object.keys(MIGRATIONS) });
  });
});
