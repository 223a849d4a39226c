import type { Kysely, RawBuilder } from 'kysely';
import type { Logger } from 'pino';
import type { WakeSource } from '../jobs/notifier.js';
import type { Committer } from './commit-batcher.js';
import type { Database } from './database.js';
import type { Executor, PreparedRunner } from './prepared.js';
import type {
  ArtifactRow,
  AuditRow,
  DocumentStore,
  IdempotencyRow,
  JobRow,
  ResultRow,
  SubmissionRow,
} from './rows.js';

export type DriverName = 'sqlite' | 'postgres';

/** A job row as a claim returns it. */
export interface ClaimedRow {
  id: string;
  tenant_id: string;
  submission_id: string | null;
  type: string;
  payload: string | object | null;
  correlation_id: string | null;
  request_id: string | null;
  attempts: number;
  max_attempts: number;
  accepted_at: string | Date;
  sla_deadline_at: string | Date | null;
  locked_by: string | null;
  traceparent: string | null;
  /** `running` when claimed; `held` for a job of a deactivated account, set aside instead. */
  status: string;
}

/** The idempotency claim a request lost to, and what it stored. */
export interface PriorClaim {
  submission_id: string;
  job_id: string;
  /** The same request bytes (by hash); SQLite answers 0 or 1. */
  same_request: boolean | number;
  /** The stored body, when it is needed to compare (the hashes differ); may be null otherwise. */
  original_body: Uint8Array | string | null;
  /** The submission was erased: its row is gone, and the fields below are null. */
  erased: boolean | number;
  partner_submission_id: string | null;
  partner_subject_id: string | null;
  received_at: string | null;
}

/** The rows one accepted submission writes, built in one place (`rows.ts`). */
export interface IngestRows {
  claim: IdempotencyRow;
  submission: SubmissionRow;
  job: JobRow;
  /** Its `submission.created` event, written only when the claim is won. */
  audit: AuditRow;
}

/**
 * `created`: this request claimed the key and its rows are written. Otherwise the claim it lost
 * to, when the driver read it on the way (PostgreSQL does, in the same statement); the
 * repository reads it when not.
 */
export type IngestWrite = { created: true } | { created: false; prior: PriorClaim | undefined };

/** What `Driver.completeJob` writes with a job's completion. */
export interface CompletionWrites {
  successor?: JobRow;
  status?: { submissionId: string; status: string };
}

/** One artifact's bytes, and what its row says once they are stored. */
export interface AvailableArtifactValues {
  artifactId: string;
  body: Buffer;
  byteSize: number;
  contentType: string;
  fileName: string;
  sha256: string;
}

/**
 * Everything that differs between the databases, behind one interface (River's `riverdriver`):
 * the connection and its transactions, the group commit, wake-ups, locks, and the few
 * operations whose SQL takes another shape on each (a data-modifying CTE on PostgreSQL, where
 * every statement is a network round trip; plain statements on SQLite, which runs them
 * in-process and has no such CTEs). The SQL both share is built once, in the repositories and
 * `statements.ts`, from the same Kysely builders; the drivers compose it. Repositories hold no
 * branch on the database: they ask their driver.
 *
 * `test/drivers/conformance.test.ts` runs the same cases against both drivers.
 */
export interface Driver extends DocumentStore {
  readonly name: DriverName;
  readonly db: Kysely<Database>;
  /** Runs the hot-path statements built once (`prepared.ts`) on this database's connection. */
  readonly runner: PreparedRunner;
  /** For logs: never contains credentials. */
  readonly describe: string;
  /**
   * Opens a connection once, so that a database that is missing or refuses is reported when a
   * process starts, as one sentence naming the setting and the fix (`DatabaseUnavailableError`),
   * rather than as the driver's words from whichever query came first. Nothing to do on SQLite,
   * whose file is opened synchronously.
   */
  checkConnection(): Promise<void>;

  /** A boolean as this database stores it (SQLite: 0 or 1). */
  bool(value: boolean): number | boolean;
  /**
   * A text field of a JSON column, for the rare query that matches one (never on a hot path:
   * no index covers it).
   */
  jsonText(column: 'jobs.payload', field: string): RawBuilder<string | null>;
  /**
   * Runs several reads that must see one state of the database (a submission and its jobs).
   * PostgreSQL: one REPEATABLE READ transaction. SQLite: as they are: each statement runs
   * synchronously on the one connection, and nothing commits between them.
   */
  readConsistent<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** This database's group commit: one batcher (SQLite), or lanes of them (PostgreSQL); one per driver. */
  readonly committer: Committer;
  /** Wake-ups for jobs committed by other processes (PostgreSQL LISTEN); none on SQLite. */
  wakeSource(logger: Logger): WakeSource | undefined;

  /**
   * The right to run one maintenance service's pass, held until `trx` ends: on PostgreSQL a
   * transaction-scoped advisory lock that one process at a time gets (false for the others); on
   * SQLite always true (the one writer serialises passes).
   */
  tryExclusive(trx: Executor, lockKey: number): Promise<boolean>;
  /** Runs `fn` on one connection, holding the lock every migrating process takes. */
  withMigrationLock<T>(fn: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /** Session settings for one migration's transaction. */
  beforeMigration(db: Kysely<unknown>): Promise<void>;

  /** Claims due jobs of `typeCount` kinds (values: now, limit, running, workerId, lockedUntil, type0…). */
  claimJobs(db: Executor, typeCount: number, values: Record<string, unknown>): Promise<ClaimedRow[]>;
  /**
   * Completes a job its worker still holds (`finish`: the values of `finishJob`) and, only if it
   * did, what goes with it: its successor already claimed (`successor`, a jobs row with its
   * lease) and a submission's new status (`status`: the successor's start, or the submission's
   * end). PostgreSQL: one statement (a data-modifying CTE), each part a round trip fewer;
   * SQLite: one statement per part. False: the lease was lost, and nothing was written.
   */
  completeJob(db: Executor, finish: Record<string, unknown>, then: CompletionWrites): Promise<boolean>;
  /** Extends the leases `workerId` still holds among `ids`; returns the ids it still holds. */
  extendLeases(workerId: string, ids: readonly string[], lockedUntil: string): Promise<string[]>;
  /**
   * Claims the idempotency key and, when it wins, writes the submission, its first job and its
   * audit event; resolves once that is durably committed (many requests share one commit).
   * SQLite: on a writer thread of its own, batches crossing as data, so the event loop neither
   * runs the statements nor waits for the disk. PostgreSQL: one statement in the group commit.
   */
  ingest(rows: IngestRows): Promise<IngestWrite>;
  /** Writes the result and its pending artifacts unless the submission has one; true if written. */
  createResult(trx: Executor, result: ResultRow, artifacts: readonly ArtifactRow[]): Promise<boolean>;
  /**
   * Stores artifacts' bytes (`artifact_contents`, unless `withBytes` is false: an object store
   * holds them), marks the artifacts available and touches their result: one statement on
   * PostgreSQL, whose round trips are what a write costs.
   */
  storeArtifacts(
    trx: Executor,
    resultId: string,
    artifacts: readonly AvailableArtifactValues[],
    now: string,
    withBytes: boolean,
  ): Promise<void>;

  /**
   * Makes rows deleted so far unreadable in the database's files (after an erasure): SQLite,
   * which zeroes deleted content (`secure_delete`), copies the write-ahead log into the database
   * and truncates it, so no older copy of a page survives there. PostgreSQL: nothing here; dead
   * rows stay in the files until VACUUM reuses their space (docs/data-lifecycle.md).
   */
  flushDeletes(): Promise<void>;

  close(): Promise<void>;
}
