import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { describePostgres } from '../../src/store/postgres/connect.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by the postgres project's global setup; names this run's databases. */
    testRunId: string;
  }
}

export type TestStoreKind = 'sqlite' | 'postgres';

/** Which store the integration tests run against: the vitest project sets it. */
export function testStoreKind(): TestStoreKind {
  const kind = process.env.HEALTHSPAN_TEST_STORE ?? 'sqlite';
  if (kind !== 'sqlite' && kind !== 'postgres') {
    throw new Error(`HEALTHSPAN_TEST_STORE must be sqlite or postgres, got "${kind}"`);
  }
  return kind;
}

/** A database from which test databases are created and dropped (never used for data). */
export const ADMIN_DATABASE_URL =
  process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function testDatabasePrefix(runId: string): string {
  return `hs_test_${runId}_`;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_DATABASE_URL, connectionTimeoutMillis: 5_000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `PostgreSQL does not answer at ${describePostgres(ADMIN_DATABASE_URL)} (TEST_DATABASE_URL): ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Fails (never skips) when PostgreSQL does not answer. */
export async function checkPostgres(): Promise<void> {
  await admin((c) => c.query('select 1'));
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one service or store; `drop` removes it, closing any connection left. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const runId = inject('testRunId') ?? 'adhoc';
  const name = `${testDatabasePrefix(runId)}${randomBytes(5).toString('hex')}`;
  await admin((c) => c.query(`create database ${name}`));
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  let dropped: Promise<void> | undefined;
  return {
    name,
    url: url.toString(),
    drop() {
      dropped ??= admin(async (c) => {
        await c.query(`drop database if exists ${name} with (force)`);
      });
      return dropped;
    },
  };
}

/** Drops every database a run created and left behind (a test that never closed its store). */
export async function dropRunDatabases(runId: string): Promise<string[]> {
  return admin(async (c) => {
    const { rows } = await c.query<{ datname: string }>(
      'select datname from pg_database where starts_with(datname, $1)',
      [testDatabasePrefix(runId)],
    );
    for (const { datname } of rows) await c.query(`drop database if exists ${datname} with (force)`);
    return rows.map((r) => r.datname);
  });
}

/** How many tables the database at `url` holds in its public schema (a refused start made none). */
export async function tableCount(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      "select count(*) as n from information_schema.tables where table_schema = 'public'",
    );
    return Number(rows[0]?.n);
  } finally {
    await client.end();
  }
}
