import {
  Kysely,
  type PostgresCursor,
  PostgresDialect,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
} from 'kysely';
import pg from 'pg';
import type { Logger } from 'pino';
import { outsideContext } from '../../context.js';
import type { Database } from '../database.js';
import { preparedStatementName } from '../prepared.js';

/**
 * Time limits, so that no request or job waits forever on a database that is down or
 * unreachable: each fails with an error instead, and the next attempt opens a new connection.
 */
export type PgTimeouts = Record<
  'connectMs' | 'statementMs' | 'queryMs' | 'idleInTransactionMs' | 'idleMs',
  number
>;

export const PG_TIMEOUTS: PgTimeouts = {
  /** Opening a connection, or waiting for a free one in a full pool. */
  connectMs: 5_000,
  /** Server side: a statement running longer is cancelled (migrations lift it). */
  statementMs: 15_000,
  /** Client side, for a connection that stopped answering (longer than the statement limit). */
  queryMs: 20_000,
  /** A transaction left open by a stalled process releases its locks. */
  idleInTransactionMs: 30_000,
  /** Idle pooled connections are closed after this. */
  idleMs: 30_000,
};

const builtins = pg.types.builtins;
const defaultTimestamptz = pg.types.getTypeParser(builtins.TIMESTAMPTZ) as (text: string) => Date;
const asText = (text: string): string => text;

/**
 * Values come back as the embedded store returns them, so repositories and tests see one shape:
 * timestamps as ISO-8601 strings (millisecond precision, which is what is written), JSON as its
 * text, and 64-bit integers (counts, the auth epoch) as numbers. Booleans, bytea and integers
 * keep pg's own parsing. A per-pool parser set, not pg's global one, so nothing else in the
 * process changes.
 */
const PARSERS = new Map<number, (text: string) => unknown>([
  [builtins.TIMESTAMPTZ, (text) => defaultTimestamptz(text).toISOString()],
  [builtins.JSON, asText],
  [builtins.JSONB, asText],
  [builtins.INT8, Number],
]);

const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    (format ?? 'text') === 'text' && PARSERS.has(oid)
      ? PARSERS.get(oid)
      : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};

/** Settings shared by the pool and the job listener's own connection. */
export function clientConfig(url: string, timeouts: PgTimeouts = PG_TIMEOUTS): pg.ClientConfig {
  return {
    connectionString: url,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    query_timeout: timeouts.queryMs,
    idle_in_transaction_session_timeout: timeouts.idleInTransactionMs,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    application_name: 'healthspan',
    types,
  };
}

/** `postgresql://host:port/database`, never the user name, password or query parameters. */
export function describePostgres(url: string): string {
  try {
    const u = new URL(url);
    return `postgresql://${u.hostname || 'localhost'}:${u.port || '5432'}${u.pathname}`;
  } catch {
    return 'postgresql';
  }
}

/** What a log line may say about a driver error: its message and code, nothing else. */
export function pgErrorFields(error: unknown): { message: string; code?: string } {
  const e = error as { message?: unknown; code?: unknown };
  return {
    message: typeof e?.message === 'string' ? e.message : String(error),
    ...(typeof e?.code === 'string' ? { code: e.code } : {}),
  };
}

function isReadTimeout(error: unknown): boolean {
  return error instanceof Error && error.message === 'Query read timeout';
}

/**
 * A pooled client as Kysely reaches it: `query(sql, parameters)` becomes pg's query config
 * `{ name, text, values }` when `sql` is one of the queries built once with `namedQuery`. pg then
 * prepares it on the connection the first time and only binds and executes it after that:
 * parsing and planning them on every execution (what an unnamed statement costs) was most of the
 * database's CPU on the ingest path. Kysely passes only the text and the values, so the name is
 * found by the text. `test/postgres/prepared-statements.test.ts` fails if pg stops doing this.
 */
class NamedStatementClient implements PostgresPoolClient {
  constructor(private readonly client: pg.PoolClient) {}

  query<R>(sql: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
  query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
  query<R>(
    sql: string | PostgresCursor<R>,
    parameters: readonly unknown[] = [],
  ): Promise<PostgresQueryResult<R>> | PostgresCursor<R> {
    // Kysely streams only through a cursor class given to the dialect, and none is.
    if (typeof sql !== 'string') throw new Error('streaming queries are not configured');
    const name = preparedStatementName(sql);
    const values = [...parameters];
    const result = name ? this.client.query({ name, text: sql, values }) : this.client.query(sql, values);
    // A query that timed out on the client side is still outstanding on its connection (the
    // network stopped answering), and every later query on it would queue behind it. Ending the
    // client makes the pool drop it on release and open a fresh connection next time.
    result.catch((error: unknown) => {
      if (isReadTimeout(error)) this.client.end().catch(() => {});
    });
    return result as Promise<PostgresQueryResult<R>>;
  }

  /** `destroy`: Kysely gives up on the connection (a rollback failed); pg then closes it. */
  release(destroy?: boolean): void {
    this.client.release(destroy);
  }
}

/**
 * The pool as Kysely reaches it: one `NamedStatementClient` per pg client, kept with it. Its `end`
 * resolves once every connection has closed (or a second passed), not when each was only asked
 * to (pg's own): a process that says it stopped has no connection left that could fail afterwards.
 */
function namedStatementPool(pool: pg.Pool, open: Set<pg.Client>): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, NamedStatementClient>();
  return {
    // Kysely reads these only to cancel a query from another connection, which we never ask for.
    options: pool.options,
    async connect() {
      const client = await pool.connect();
      let named = clients.get(client);
      if (named === undefined) {
        named = new NamedStatementClient(client);
        clients.set(client, named);
      }
      return named;
    },
    end: async () => {
      await pool.end();
      // At most a second: on a network that stopped answering, a goodbye is never acknowledged.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all([...open].map((client) => new Promise((resolve) => client.once('end', resolve)))),
        new Promise((resolve) => {
          timer = setTimeout(resolve, 1000);
        }),
      ]);
      clearTimeout(timer);
    },
  };
}

export function connectPostgres(
  url: string,
  poolSize: number,
  logger: Logger,
  timeouts: PgTimeouts = PG_TIMEOUTS,
): { db: Kysely<Database> } {
  const pool = new pg.Pool({
    ...clientConfig(url, timeouts),
    max: poolSize,
    idleTimeoutMillis: timeouts.idleMs,
  });
  // An idle connection that dies (server restart, network) is removed by the pool, which then
  // emits 'error': without a listener that would end the process.
  pool.on('error', (error) => {
    // Closing: the connections are going anyway (a server that ends them first says so).
    if (pool.ending) return;
    // Not the failure of whichever request or job first opened the connection.
    outsideContext(() =>
      logger.warn(
        { err: pgErrorFields(error) },
        'an idle PostgreSQL connection failed; the pool replaces it',
      ),
    );
  });
  // A connection in use has no pool listener: its failure surfaces as the error of its next
  // query, which the caller handles; this listener only keeps the event from ending the process.
  const open = new Set<pg.Client>();
  pool.on('connect', (client) => {
    client.on('error', () => {});
    open.add(client);
    client.once('end', () => open.delete(client));
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: namedStatementPool(pool, open) }) });
  return { db };
}
