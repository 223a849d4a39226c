import type { Kysely, Transaction } from 'kysely';
import type { Database } from './database.js';

const SLOT = '\u0000slot:';

/**
 * A named placeholder for a query that is built once with Kysely and executed many times as a
 * prepared statement: building and compiling a query costs more than running it on the hot path.
 */
export function slot<T = string>(name: string): T {
  return `${SLOT}${name}` as T;
}

export interface NamedQuery {
  sql: string;
  /** The compiled parameters (slots), from which `namedQuery` builds the same query again elsewhere. */
  parameters: readonly unknown[];
  /** Turns named values into the positional parameters of `sql`. */
  bind(values: Record<string, unknown>): unknown[];
}

/** Hot-path SQL texts and the server-side prepared statement name each runs under. */
const statementNames = new Map<string, string>();

/**
 * The name under which PostgreSQL keeps `sql` prepared on each connection, when it is one of
 * the queries built once with `namedQuery`: parsing and planning them on every execution
 * (what an unnamed statement costs) was most of the database's CPU on the ingest path.
 */
export function preparedStatementName(sql: string): string | undefined {
  return statementNames.get(sql);
}

export function namedQuery(compiled: { sql: string; parameters: readonly unknown[] }): NamedQuery {
  if (!statementNames.has(compiled.sql)) statementNames.set(compiled.sql, `hs_${statementNames.size + 1}`);
  // A slot named `row.column` takes the column of the row passed under `row` (`rows.ts`), so a
  // whole row binds without copying it into prefixed keys on every execution.
  const order = compiled.parameters.map((p) => {
    if (typeof p !== 'string' || !p.startsWith(SLOT)) {
      throw new Error(`prepared query has a literal parameter ${String(p)}; use slot() for every value`);
    }
    const name = p.slice(SLOT.length);
    const dot = name.indexOf('.');
    return dot < 0
      ? { name, row: undefined, column: name }
      : { name, row: name.slice(0, dot), column: name.slice(dot + 1) };
  });
  return {
    sql: compiled.sql,
    parameters: compiled.parameters,
    bind(values) {
      return order.map(({ name, row, column }) => {
        const source = row === undefined ? values : (values[row] as Record<string, unknown> | undefined);
        if (source === undefined || !(column in source)) throw new Error(`missing value for slot ${name}`);
        return source[column];
      });
    },
  };
}

export type Executor = Kysely<Database> | Transaction<Database>;

/**
 * Runs queries built once (see `slot`) as prepared statements. On SQLite every query shares the
 * one connection, so a statement run here inside an open Kysely transaction is part of it.
 */
export interface PreparedRunner {
  all<T>(db: Executor, query: NamedQuery, values: Record<string, unknown>): Promise<T[]>;
  run(db: Executor, query: NamedQuery, values: Record<string, unknown>): Promise<number>;
  /** A fixed statement without parameters (savepoints). */
  exec(db: Executor, statement: string): Promise<void>;
}

/** Statements built once per count of their repeated part (job types, artifacts, ids). */
export class QueriesByCount {
  private readonly queries = new Map<number, NamedQuery>();

  get(count: number, build: () => NamedQuery): NamedQuery {
    let query = this.queries.get(count);
    if (!query) {
      query = build();
      this.queries.set(count, query);
    }
    return query;
  }
}
