import { describe, expect, it } from 'vitest';
import { maintenanceDatabase } from '../../src/store/index.js';

/** A DATABASE_URL naming the server's own maintenance database is warned of (docs/postgresql.md). */
describe('maintenanceDatabase', () => {
  it('warns of the postgres and template databases, and of nothing else', () => {
    expect(maintenanceDatabase('postgres://postgres@127.0.0.1:5432/postgres')).toBe(
      `DATABASE_URL names the server's maintenance database "postgres": give healthspan a database of its own (createdb healthspan; docs/postgresql.md)`,
    );
    expect(maintenanceDatabase('postgresql://u:p@db/template1?sslmode=require')).toMatch(/"template1"/);
    expect(maintenanceDatabase('postgres://u@db:5432/healthspan')).toBeUndefined();
    expect(maintenanceDatabase(undefined)).toBeUndefined();
  });
});
