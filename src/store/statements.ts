import { type ExpressionBuilder, type Kysely, type QueryCreator, type SelectQueryBuilder, sql } from 'kysely';
import type { Database } from './database.js';
import { ERASURE_JOB_TYPE } from './erasure-job-type.js';
import { type NamedQuery, namedQuery, slot } from './prepared.js';
import {
  ARTIFACT_COLUMNS,
  AUDIT_COLUMNS,
  IDEMPOTENCY_COLUMNS,
  JOB_COLUMNS,
  RESULT_COLUMNS,
  SUBMISSION_COLUMNS,
} from './rows.js';

/**
 * The SQL both drivers run, built once from Kysely builders. Where a driver needs another shape
 * (PostgreSQL folds several statements into one CTE), it composes these same pieces, so no
 * statement is written twice. Row values come from `rows.ts`, bound under `prefix.column`.
 */

/** A named slot per column, `prefix.column`, for an insert of a row from `rows.ts`. */
export function rowSlots<C extends string>(prefix: string, columns: readonly C[]): Record<C, string> {
  const out = {} as Record<C, string>;
  for (const column of columns) out[column] = slot(`${prefix}.${column}`);
  return out;
}

/** The same slots as a select list (`$1 as "id", …`), for an `insert … select` in a CTE. */
export function rowSelection<C extends string>(prefix: string, columns: readonly C[]) {
  return columns.map((column) => sql`${slot(`${prefix}.${column}`)}`.as(column));
}

// Slots stand for values of every column type: the builders are told so once, here.
type AnyRow = never;

export const insertJob = (db: Kysely<Database>): NamedQuery =>
  namedQuery(
    db
      .insertInto('jobs')
      .values(rowSlots('j', JOB_COLUMNS) as AnyRow)
      .compile(),
  );

export const insertAuditEvent = (db: Kysely<Database>): NamedQuery =>
  namedQuery(
    db
      .insertInto('audit_events')
      .values(rowSlots('e', AUDIT_COLUMNS) as AnyRow)
      .compile(),
  );

export const insertSubmission = (db: Kysely<Database>) =>
  db.insertInto('submissions').values(rowSlots('s', SUBMISSION_COLUMNS) as AnyRow);

/** Claims the key, or takes it over once the previous claim has expired (24-hour scope). */
export const claimIdempotencyKey = (db: Kysely<Database>) =>
  db
    .insertInto('idempotency_keys')
    .values(rowSlots('k', IDEMPOTENCY_COLUMNS) as AnyRow)
    .onConflict((oc) =>
      oc
        .columns(['partner_id', 'key_hash'])
        .doUpdateSet((eb) => ({
          request_hash: eb.ref('excluded.request_hash'),
          submission_id: eb.ref('excluded.submission_id'),
          job_id: eb.ref('excluded.job_id'),
          created_at: eb.ref('excluded.created_at'),
          expires_at: eb.ref('excluded.expires_at'),
        }))
        .where('idempotency_keys.expires_at', '<=', slot('k.created_at')),
    )
    .returning(['submission_id']);

/** The claim that holds a key, with what the request that made it stored. */
export const priorClaim = (db: Kysely<Database>) =>
  db
    .selectFrom('idempotency_keys')
    // Left: the submission of a claim whose submission was erased is gone (only erasure deletes
    // one), and the replay answers 410.
    .leftJoin('submissions', 'submissions.id', 'idempotency_keys.submission_id')
    .select([
      'idempotency_keys.submission_id',
      'idempotency_keys.job_id',
      sql<boolean>`idempotency_keys.request_hash = ${slot('k.request_hash')}`.as('same_request'),
      // The body only when it is needed: to compare, when the request bytes differ.
      sql<string | null>`case when idempotency_keys.request_hash = ${slot('k.request_hash')} then null
        else submissions.original_body end`.as('original_body'),
      sql<boolean>`submissions.id is null`.as('erased'),
      'submissions.partner_submission_id',
      'submissions.partner_subject_id',
      'submissions.received_at',
    ])
    .where('idempotency_keys.partner_id', '=', slot('k.partner_id'))
    .where('idempotency_keys.key_hash', '=', slot('k.key_hash'));

/**
 * A job's attempt ends (completed, retrying or failed), fenced on the lease: only the worker
 * that still holds the job may end it. Completion, retry and failure differ only in values.
 */
export const finishJob = (db: Kysely<Database>) =>
  db
    .updateTable('jobs')
    .set({
      status: slot('status'),
      completed_at: sql`coalesce(${slot('completedAt')}, completed_at)`,
      failed_at: sql`coalesce(${slot('failedAt')}, failed_at)`,
      run_at: sql`coalesce(${slot('runAt')}, run_at)`,
      error_summary: slot('summary'),
      locked_by: slot('nothing'),
      locked_until: slot('nothing'),
      updated_at: slot('now'),
    })
    .where('id', '=', slot('id'))
    .where('locked_by', '=', slot('owner'))
    .where('status', '=', slot('running'));

/**
 * A submission's status, by id. Slot names are given so a CTE can bind them beside another
 * statement's (`Driver.completeJob`).
 */
export const setSubmissionStatus = (
  qc: QueryCreator<Database>,
  slots: { id: string; status: string } = { id: 'id', status: 'status' },
) =>
  qc
    .updateTable('submissions')
    .set({ status: slot(slots.status), updated_at: slot('now') })
    .where('id', '=', slot(slots.id));

/** One status for `count` submissions, by id (`id0`, `id1`, …). */
export function setStatusOfMany(db: Kysely<Database>, count: number) {
  const ids = Array.from({ length: count }, (_, i) => slot(`id${i}`));
  return db
    .updateTable('submissions')
    .set({ status: slot('status'), updated_at: slot('now') })
    .where('id', 'in', ids);
}

/** The job columns a claim returns (`ClaimedRow`). */
export const CLAIMED_COLUMNS = [
  'id',
  'tenant_id',
  'submission_id',
  'type',
  'payload',
  'correlation_id',
  'request_id',
  'attempts',
  'max_attempts',
  'accepted_at',
  'sla_deadline_at',
  'locked_by',
  'traceparent',
] as const;

/** Due jobs of `typeCount` kinds, oldest due first. */
/**
 * True for a job whose account is deactivated (a sandbox's job: its live account's), held
 * rather than run. Erasures are never held: forgetting a person is owed whatever the account's
 * state (docs/data-lifecycle.md). Two primary-key lookups per job picked, never a scan: the
 * claim evaluates it only for the rows its partial index hands it.
 */
const ACCOUNT_INACTIVE = sql<boolean>`(jobs.type <> ${sql.lit(ERASURE_JOB_TYPE)} and exists (select 1 from tenants t left join tenants live on live.id = t.live_tenant_id where t.id = jobs.tenant_id and not coalesce(live.active, t.active)))`;

/**
 * `limit`: a number is written into the SQL as a literal (SQLite, where a bound `LIMIT ?`
 * made the claim 4 to 5 times slower: 130 against 26 µs for one job on a 3,000-job backlog,
 * measured); otherwise a slot.
 */
export function dueJobs(
  db: Kysely<Database>,
  typeCount: number,
  limit?: number,
): SelectQueryBuilder<Database, 'jobs', { id: string; held: boolean }> {
  // Literal statuses, not parameters: only then can the planner use the partial index.
  return db
    .selectFrom('jobs')
    .select(['id', ACCOUNT_INACTIVE.as('held')])
    .where(sql<boolean>`status in ('pending', 'retrying')`)
    .where('run_at', '<=', slot('now'))
    .where(
      'type',
      'in',
      Array.from({ length: typeCount }, (_, i) => slot(`type${i}`)),
    )
    .orderBy('run_at')
    .limit(limit === undefined ? slot<number>('limit') : sql.lit(limit));
}

/**
 * What a claim sets on each row of `due`: the lease, the counted attempt, the first start; or,
 * for a job of a deactivated account, status `held` and nothing else (no attempt counted, no
 * SLA deadline: the wait is not the service's delay). Each branch keeps a column's own type, so
 * PostgreSQL types the parameters from the columns.
 */
export const LEASE = {
  status: sql<string>`case when due.held then 'held' else ${slot('running')} end`,
  attempts: sql<number>`case when due.held then attempts else attempts + 1 end`,
  locked_by: sql<string>`case when due.held then locked_by else ${slot('workerId')} end`,
  locked_until: sql<string>`case when due.held then locked_until else ${slot('lockedUntil')} end`,
  started_at: sql<string>`case when due.held then started_at else coalesce(started_at, ${slot('now')}) end`,
  sla_deadline_at: sql<string | null>`case when due.held then null else sla_deadline_at end`,
  updated_at: slot('now'),
};

/** What a claim returns: the claimed jobs, and the held ones (`status`) the caller drops. */
export const CLAIM_RETURNING = [...CLAIMED_COLUMNS.map((c) => `jobs.${c}` as const), 'jobs.status' as const];

/** Jobs among `ids` that `workerId` still holds. */
export function heldBy(eb: ExpressionBuilder<Database, 'jobs'>, workerId: string, ids: readonly string[]) {
  return eb.and([eb('id', 'in', [...ids]), eb('locked_by', '=', workerId), eb('status', '=', 'running')]);
}

/** The result, unless the submission has one (a re-run of the scoring step). */
export const insertResultIfAbsent = (db: Kysely<Database>) =>
  db
    .insertInto('results')
    .values(rowSlots('r', RESULT_COLUMNS) as AnyRow)
    .onConflict((oc) => oc.column('submission_id').doNothing())
    .returning('id');

export const insertArtifact = (db: Kysely<Database>) =>
  db.insertInto('artifacts').values(rowSlots('a', ARTIFACT_COLUMNS) as AnyRow);

/** One artifact marked available; `i` names its slots, so several fit in one statement. */
export const markArtifactAvailable = (db: Kysely<Database>, i: number) =>
  db
    .updateTable('artifacts')
    .set({
      availability: sql.lit('available'),
      content_type: slot(`contentType${i}`),
      file_name: slot(`fileName${i}`),
      byte_size: slot<number>(`byteSize${i}`),
      sha256: slot(`sha256${i}`),
      generated_at: slot('now'),
      updated_at: slot('now'),
    })
    .where('id', '=', slot(`id${i}`));

/** The bytes of `count` artifacts (`id0` and `body0`, …), written or replaced. */
export const upsertArtifactContents = (qc: QueryCreator<Database>, count: number) =>
  qc
    .insertInto('artifact_contents')
    .values(
      Array.from({ length: count }, (_, i) => ({
        artifact_id: slot(`id${i}`),
        body: slot<Buffer>(`body${i}`),
      })),
    )
    .onConflict((oc) => oc.column('artifact_id').doUpdateSet((eb) => ({ body: eb.ref('excluded.body') })));

export const touchResult = (db: QueryCreator<Database>) =>
  db
    .updateTable('results')
    .set({ updated_at: slot('now') })
    .where('id', '=', slot('resultId'));

/** Values for the slots of `markArtifactAvailable` and `upsertArtifactContents`. */
export function availableValues(
  artifacts: ReadonlyArray<{
    artifactId: string;
    body: Buffer;
    contentType: string;
    fileName: string;
    byteSize: number;
    sha256: string;
  }>,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [i, a] of artifacts.entries()) {
    Object.assign(values, {
      [`id${i}`]: a.artifactId,
      [`body${i}`]: a.body,
      [`contentType${i}`]: a.contentType,
      [`fileName${i}`]: a.fileName,
      [`byteSize${i}`]: a.byteSize,
      [`sha256${i}`]: a.sha256,
    });
  }
  return values;
}

/**
 * The `partnerId` a submission's body names, from its credential joined as `p`: the live
 * credential's id, also for a sandbox credential (docs/sandbox.md).
 */
export const namedPartnerId = () => sql<string>`coalesce(p.live_partner_id, p.id)`.as('named_partner_id');
