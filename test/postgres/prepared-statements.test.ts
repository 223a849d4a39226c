import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { Store } from '../../src/store/index.js';
import { type Executor, namedQuery, preparedStatementName, slot } from '../../src/store/prepared.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { tempDataDir } from '../helpers/dirs.js';
import { ingestCommand } from '../helpers/store.js';

/**
 * The hot-path queries run as named (server-side prepared) statements through pg's own query
 * config (`name`, `store/postgres/connect.ts`). These read PostgreSQL's view of the one pooled
 * connection, so a pg or Kysely upgrade that stops passing the name, or prepares a statement on
 * every execution, fails here rather than only showing in the benchmarks.
 */

let database: TestDatabase;
let store: Store;

beforeEach(async () => {
  database = await createTestDatabase();
  // One connection, so every statement below and the view read after it share one session.
  store = Store.open(
    {
      dataDir: tempDataDir(),
      databaseUrl: database.url,
      databasePoolSize: 1,
      slaSeconds: 300,
      jobMaxAttempts: 5,
    },
    { clock: systemClock, logger: createLogger('silent') },
  );
  await store.migrate();
});
afterEach(async () => {
  await store.close();
  await database.drop();
});

interface Prepared {
  name: string;
  statement: string;
  executions: number;
}

/** The statements prepared under a name on the pool's (one) connection, with their executions. */
async function prepared(db: Executor): Promise<Prepared[]> {
  const { rows } = await sql<Prepared>`
    select name, statement, (generic_plans + custom_plans)::integer as executions
    from pg_prepared_statements where not from_sql order by name`.execute(db);
  return rows;
}

describe('named statements on PostgreSQL', () => {
  it('prepare a query built once on first use and reuse it, inside transactions too', async () => {
    const { db, runner } = store.driver;
    const query = namedQuery(sql`select ${slot('n')}::integer + 1 as n`.compile(db));
    const name = preparedStatementName(query.sql);
    expect(name).toMatch(/^hs_\d+$/);
    const before = await prepared(db);
    expect(before.map((p) => p.name)).not.toContain(name);

    expect(await runner.all(db, query, { n: 1 })).toEqual([{ n: 2 }]);
    expect(await runner.all(db, query, { n: 2 })).toEqual([{ n: 3 }]);
    await db.transaction().execute(async (trx) => {
      expect(await runner.all(trx, query, { n: 3 })).toEqual([{ n: 4 }]);
    });
    // A query Kysely builds each time runs unnamed: it leaves nothing prepared.
    await db.selectFrom('tenants').select('id').execute();

    expect(await prepared(db)).toEqual([...before, { name, statement: query.sql, executions: 3 }]);
  });

  it('run every ingest after the first as an execution of the one prepared ingest statement', async () => {
    const { tenantId } = await store.system.accounts.createTenant('T');
    const { partnerId } = await store.system.accounts.createPartner(tenantId, 'P');
    for (const key of ['k1', 'k2', 'k3']) {
      const outcome = await store.system.ingest.ingest(
        ingestCommand({ tenantId, partnerId }, { idempotencyKeyHash: key }),
      );
      expect(outcome.kind).toBe('created');
    }
    const ingest = (await prepared(store.driver.db)).filter((p) =>
      p.statement.includes('insert into "submissions"'),
    );
    expect(ingest).toEqual([
      { name: expect.stringMatching(/^hs_\d+$/), statement: expect.any(String), executions: 3 },
    ]);
  });
});
