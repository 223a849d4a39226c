import type { Executor, NamedQuery, PreparedRunner } from '../prepared.js';
import type { SqliteConnection } from './connection.js';

/**
 * Statements built once, run on the event loop's connection without Kysely's per-query work.
 * Every query shares that connection, so a statement run here inside an open Kysely transaction
 * is part of it.
 */
export class SqlitePreparedRunner implements PreparedRunner {
  constructor(private readonly connection: SqliteConnection) {}

  async all<T>(_db: Executor, query: NamedQuery, values: Record<string, unknown>): Promise<T[]> {
    return (await this.connection.execute(query.sql, query.bind(values))).rows as T[];
  }

  async run(_db: Executor, query: NamedQuery, values: Record<string, unknown>): Promise<number> {
    return (await this.connection.execute(query.sql, query.bind(values))).changes;
  }

  async exec(_db: Executor, statement: string): Promise<void> {
    await this.connection.execute(statement, []);
  }
}
