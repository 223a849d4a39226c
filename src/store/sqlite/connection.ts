import type SqliteDatabase from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver as KyselyDriver,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { isSqliteBusy } from './busy.js';
import type { WalSync } from './wal-sync.js';
import type { WriteTurns } from './write-turns.js';

/** How long a write waits for another process's lock before it fails (SQLite's busy timeout). */
const BUSY_WAIT_MS = 5000;

export interface StatementResult {
  rows: unknown[];
  changes: number;
  lastInsertRowid: number | bigint | undefined;
}

function run(stmt: SqliteDatabase.Statement, parameters: readonly unknown[]): StatementResult {
  if (stmt.reader) {
    const rows = stmt.all(parameters as unknown[]);
    return { rows, changes: rows.length, lastInsertRowid: undefined };
  }
  const { changes, lastInsertRowid } = stmt.run(parameters as unknown[]);
  return { rows: [], changes, lastInsertRowid };
}

/**
 * Runs `fn` until SQLite stops answering `SQLITE_BUSY` (another process holds the write lock),
 * waiting between tries on a timer, so the event loop goes on meanwhile: the connection's own
 * busy timeout is 0, because SQLite's busy handler sleeps on the calling thread.
 */
async function whileBusy<T>(fn: () => T): Promise<T> {
  const deadline = performance.now() + BUSY_WAIT_MS;
  for (let wait = 1; ; wait = Math.min(wait * 2, 16)) {
    try {
      return fn();
    } catch (error) {
      if (!isSqliteBusy(error) || performance.now() > deadline) throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
  }
}

const ENDS_WITH_COMMIT = /^\s*(commit|end)\b/i;

/**
 * The event loop's connection. Statements are prepared once and kept. Writes take the process's
 * write turn (`WriteTurns`): a write transaction from its `BEGIN IMMEDIATE` to its end, a single
 * writing statement for its run. Commits are made durable by `WalSync` off the event loop, and a
 * commit's caller is answered after that (the connection runs with `synchronous=NORMAL`), so the
 * loop never waits for the disk or for another writer.
 */
export class SqliteConnection implements DatabaseConnection {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();
  /** The open transaction took the write turn when it began, and gives it back when it ends. */
  private transactionTurn = false;

  constructor(
    private readonly sqlite: SqliteDatabase.Database,
    private readonly turns: WriteTurns,
    private readonly wal: WalSync,
    /** Told after each commit (the driver asks for a checkpoint off the event loop). */
    private readonly committed: () => void = () => {},
  ) {}

  private statement(sql: string): SqliteDatabase.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.sqlite.prepare(sql);
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  async execute(sql: string, parameters: readonly unknown[]): Promise<StatementResult> {
    const stmt = this.statement(sql);
    if (this.sqlite.inTransaction) return this.inTransaction(stmt, sql, parameters);
    if (stmt.readonly) return whileBusy(() => run(stmt, parameters));
    // A write outside a transaction: `BEGIN IMMEDIATE`, or a single writing statement.
    await this.turns.acquire();
    let result: StatementResult;
    try {
      result = await whileBusy(() => run(stmt, parameters));
    } catch (error) {
      this.turns.release();
      throw error;
    }
    if (this.sqlite.inTransaction) {
      this.transactionTurn = true;
      return result;
    }
    this.turns.release();
    this.committed();
    await this.wal.sync();
    return result;
  }

  private async inTransaction(
    stmt: SqliteDatabase.Statement,
    sql: string,
    parameters: readonly unknown[],
  ): Promise<StatementResult> {
    let result: StatementResult | undefined;
    try {
      result = run(stmt, parameters);
    } finally {
      // Ended by this statement: a commit, a rollback, or an error SQLite rolled back for.
      if (this.transactionTurn && !this.sqlite.inTransaction) {
        this.transactionTurn = false;
        this.turns.release();
        if (result !== undefined && ENDS_WITH_COMMIT.test(sql)) {
          this.committed();
          await this.wal.sync();
        }
      }
    }
    return result;
  }

  async executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const { rows, changes, lastInsertRowid } = await this.execute(compiled.sql, compiled.parameters);
    const stmt = this.statement(compiled.sql);
    if (stmt.reader) return { rows: rows as R[] };
    return {
      rows: [],
      numAffectedRows: BigInt(changes),
      insertId: lastInsertRowid === undefined ? undefined : BigInt(lastInsertRowid),
    };
  }

  // biome-ignore lint/correctness/useYield: Kysely asks every connection for this; nothing streams here
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('this store does not stream query results');
  }

  get transactionOpen(): boolean {
    return this.sqlite.inTransaction;
  }
}

/** One connection: Kysely's queries and transactions wait for each other here. */
class ConnectionMutex {
  private locked: Promise<void> | undefined;
  private unlock: (() => void) | undefined;

  async lock(): Promise<void> {
    while (this.locked) await this.locked;
    this.locked = new Promise((resolve) => {
      this.unlock = resolve;
    });
  }

  release(): void {
    const unlock = this.unlock;
    this.locked = undefined;
    this.unlock = undefined;
    unlock?.();
  }
}

const quoted = (name: string) => `"${name.replaceAll('"', '""')}"`;

class SqliteMainDriver implements KyselyDriver {
  private readonly mutex = new ConnectionMutex();

  constructor(private readonly connection: SqliteConnection) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.mutex.lock();
    return this.connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    // Immediate: the write lock (and the write turn) from the start, so no statement inside
    // ever meets another writer.
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // A failed commit, or an error SQLite already rolled back for, leaves nothing to roll back.
    if (this.connection.transactionOpen) await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint ${quoted(name)}`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to ${quoted(name)}`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release ${quoted(name)}`));
  }

  async releaseConnection(): Promise<void> {
    this.mutex.release();
  }

  /** The store's driver closes the database itself. */
  async destroy(): Promise<void> {}
}

/** Kysely on the event loop's connection. */
export function sqliteDialect(connection: SqliteConnection): Dialect {
  return {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new SqliteMainDriver(connection),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
}
