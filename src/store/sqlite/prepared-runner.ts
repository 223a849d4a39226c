import type SqliteDatabase from 'better-sqlite3';
import type { Executor, NamedQuery, PreparedRunner } from '../prepared.js';

/**
 * Statements prepared once on the one connection and run synchronously. Every query shares that
 * connection, so a statement run here inside an open Kysely transaction is part of it.
 */
export class SqlitePreparedRunner implements PreparedRunner {
  private readonly cache = new Map<string, SqliteDatabase.Statement>();

  constructor(private readonly sqlite: SqliteDatabase.Database) {}

  private statement(sql: string): SqliteDatabase.Statement {
    let stmt = this.cache.get(sql);
    if (!stmt) {
      stmt = this.sqlite.prepare(sql);
      this.cache.set(sql, stmt);
    }
    return stmt;
  }

  async all<T>(_db: Executor, query: NamedQuery, values: Record<string, unknown>): Promise<T[]> {
    return this.statement(query.sql).all(...query.bind(values)) as T[];
  }

  async run(_db: Executor, query: NamedQuery, values: Record<string, unknown>): Promise<number> {
    const stmt = this.statement(query.sql);
    if (stmt.reader) return stmt.all(...query.bind(values)).length;
    return stmt.run(...query.bind(values)).changes;
  }

  async exec(_db: Executor, statement: string): Promise<void> {
    this.statement(statement).run();
  }
}
