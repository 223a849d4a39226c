import { CompiledQuery } from 'kysely';
import type { Executor, NamedQuery, PreparedRunner } from '../prepared.js';

/**
 * The same SQL through Kysely's connection (and so its transaction); the pool runs it as a named
 * server-side prepared statement (`connect.ts`).
 */
export class KyselyPreparedRunner implements PreparedRunner {
  async all<T>(db: Executor, query: NamedQuery, values: Record<string, unknown>): Promise<T[]> {
    const res = await db.executeQuery<T>(CompiledQuery.raw(query.sql, query.bind(values)));
    return res.rows;
  }

  async run(db: Executor, query: NamedQuery, values: Record<string, unknown>): Promise<number> {
    const res = await db.executeQuery(CompiledQuery.raw(query.sql, query.bind(values)));
    return Number(res.numAffectedRows ?? BigInt(res.rows.length));
  }

  async exec(db: Executor, statement: string): Promise<void> {
    await db.executeQuery(CompiledQuery.raw(statement, []));
  }
}
