import type { CompiledQuery } from 'kysely';

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
  /** Turns named values into the positional parameters of `sql`. */
  bind(values: Record<string, unknown>): unknown[];
}

export function namedQuery(compiled: CompiledQuery): NamedQuery {
  const order = compiled.parameters.map((p) => {
    if (typeof p !== 'string' || !p.startsWith(SLOT)) {
      throw new Error(`prepared query has a literal parameter ${String(p)}; use slot() for every value`);
    }
    return p.slice(SLOT.length);
  });
  return {
    sql: compiled.sql,
    bind(values) {
      return order.map((name) => {
        if (!(name in values)) throw new Error(`missing value for slot ${name}`);
        return values[name];
      });
    },
  };
}
