import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/database.js';
import { tempDataDir } from '../helpers/service.js';

/**
 * `migrate` (and a start with MIGRATE_ON_START) refuses a database that holds other tables and
 * was never migrated by healthspan, creating nothing there (docs/postgresql.md).
 */
describe('a database that is not healthspan’s', () => {
  it('is refused by migrate with one sentence, and nothing is created in it', async () => {
    const database = await createTestDatabase();
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query('create table orders (id int primary key)');
      await client.query('create table customers (id int primary key)');
      const migrate = await runCli({ DATA_DIR: tempDataDir(), DATABASE_URL: database.url }, ['migrate']);
      expect(migrate.code).toBe(1);
      expect(migrate.stderr).toMatch(
        /^healthspan-admin: the database at .+ already holds tables that are not healthspan's \((orders, customers|customers, orders)\) and no healthspan migration ran there: give healthspan a database of its own \(createdb healthspan; docs\/postgresql\.md\); nothing was created\n$/,
      );
      const { rows } = await client.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = 'public' order by 1",
      );
      expect(rows.map((r) => r.table_name)).toEqual(['customers', 'orders']);
    } finally {
      await client.end();
      await database.drop();
    }
  });
});
