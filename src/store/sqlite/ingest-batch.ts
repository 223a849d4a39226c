import type SqliteDatabase from 'better-sqlite3';
import type { IngestRows, IngestWrite, PriorClaim } from '../driver.js';
import { type NamedQuery, namedQuery } from '../prepared.js';

/** A unit's outcome as it crosses back from the writer thread: errors travel as their message and code. */
export type UnitOutcome =
  | { ok: true; value: IngestWrite }
  | { ok: false; error: { message: string; code: string | undefined } };

export interface IngestStatements {
  claim: NamedQuery;
  prior: NamedQuery;
  submission: NamedQuery;
  job: NamedQuery;
  audit: NamedQuery;
}

/**
 * The writer thread's connection: every commit fsync'd inside `COMMIT` (`synchronous=FULL`: this
 * thread waits for the disk, nothing else does), and SQLite's busy handler may wait for another
 * process's lock here, blocking nothing else.
 */
export function configureWriterConnection(sqlite: SqliteDatabase.Database): SqliteDatabase.Database {
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('secure_delete = ON');
  return sqlite;
}

/** The statements as they cross to the thread (`compileIngestStatements`): text and slots. */
export type IngestStatementTexts = Record<keyof IngestStatements, Pick<NamedQuery, 'sql' | 'parameters'>>;

/** The thread's statements, from the texts compiled on the event loop. */
export function ingestStatements(texts: IngestStatementTexts): IngestStatements {
  return {
    claim: namedQuery(texts.claim),
    prior: namedQuery(texts.prior),
    submission: namedQuery(texts.submission),
    job: namedQuery(texts.job),
    audit: namedQuery(texts.audit),
  };
}

/**
 * Writes batches of accepted submissions on `sqlite` (the writer thread's connection), the way
 * the group commit does on the event loop: all units of a batch in one plain transaction; should
 * one fail, the batch is rolled back and written again with a savepoint per unit, so only that
 * unit fails. A unit that loses its idempotency key writes nothing and returns the claim it lost
 * to, read in the same transaction.
 *
 * So, as in the group commit (`CommitUnit`), a unit may run twice, the first attempt rolled
 * back. Units here are rows, not code: the second attempt runs the same statements over the
 * same rows and decides from what it reads, so it meets that contract by construction.
 */
export class IngestBatchWriter {
  private readonly together: (units: readonly IngestRows[]) => IngestWrite[];
  private readonly isolated: (units: readonly IngestRows[]) => UnitOutcome[];

  constructor(sqlite: SqliteDatabase.Database, q: IngestStatements) {
    const claim = sqlite.prepare(q.claim.sql);
    const prior = sqlite.prepare(q.prior.sql);
    const submission = sqlite.prepare(q.submission.sql);
    const job = sqlite.prepare(q.job.sql);
    const audit = sqlite.prepare(q.audit.sql);
    const writeOne = (rows: IngestRows): IngestWrite => {
      const claimed = claim.get(q.claim.bind({ k: rows.claim })) as { submission_id: string } | undefined;
      if (claimed?.submission_id !== rows.claim.submission_id) {
        return {
          created: false,
          prior: prior.get(q.prior.bind({ k: rows.claim })) as PriorClaim | undefined,
        };
      }
      submission.run(q.submission.bind({ s: rows.submission }));
      job.run(q.job.bind({ j: rows.job }));
      audit.run(q.audit.bind({ e: rows.audit }));
      return { created: true };
    };
    const one = sqlite.transaction(writeOne);
    this.together = sqlite.transaction((units: readonly IngestRows[]) => units.map(writeOne)).immediate;
    this.isolated = sqlite.transaction((units: readonly IngestRows[]) =>
      units.map((rows): UnitOutcome => {
        try {
          // Nested in `isolated`, better-sqlite3 runs it in a savepoint.
          return { ok: true, value: one(rows) };
        } catch (error) {
          return { ok: false, error: describe(error) };
        }
      }),
    ).immediate;
  }

  write(units: readonly IngestRows[]): UnitOutcome[] {
    try {
      return this.together(units).map((value) => ({ ok: true, value }));
    } catch {
      return this.isolated(units);
    }
  }
}

export function describe(error: unknown): { message: string; code: string | undefined } {
  const code = (error as { code?: unknown } | null)?.code;
  return {
    // An error that crossed from a thread may not be an instance of this thread's Error.
    message: String((error as { message?: unknown } | null)?.message ?? error),
    code: typeof code === 'string' ? code : undefined,
  };
}
