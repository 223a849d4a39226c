import type { AuditOrigin } from '../../domain/audit.js';
import type { NewJob } from '../../jobs/types.js';
import { iso, isoOrNull } from '../codec.js';
import type { Driver } from '../driver.js';
import { ERASURE_JOB_TYPE } from '../erasure-job-type.js';
import { newId, subjectIdFor } from '../ids.js';
import { type KeysetPage, type KeysetPosition, keysetPage } from '../keyset.js';
import type { LedgerEntry, LedgerFields, LedgerStateRepository } from '../ledger/index.js';
import type { Executor } from '../prepared.js';
import type { AuditRepository } from './audit.js';
import type { JobsRepository } from './jobs.js';

export { ERASURE_JOB_TYPE };

/** What one erasure removed. */
export interface ErasureCounts {
  submissions: number;
  results: number;
  artifacts: number;
}

export interface ErasureRecord {
  erasureId: string;
  tenantId: string;
  partnerSubjectId: string;
  status: 'pending' | 'completed';
  requestedAt: string;
  completedAt: string | null;
  counts: ErasureCounts;
}

export interface ErasureListQuery {
  limit: number;
  /** Where a page starts: after this erasure's (requestedAt, erasureId); older ones follow. */
  after?: KeysetPosition | undefined;
}

/** Seals the partner's subject reference an erasure keeps to show back (`secret-box.ts`). */
export interface Sealer {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

/** How a request meets the erasure ledger (docs/backup.md). */
export interface LedgerUse {
  /**
   * Kept across a commit unit's attempts: the entry the first attempt appended, which a second
   * attempt reuses (the same erasure id) instead of appending another.
   */
  memo?: { entry?: LedgerEntry };
  /** A replay of this entry: the erasure takes its id, and nothing is appended. */
  replayOf?: LedgerEntry;
  /** The ledger holds the replayed erasure's `completed` entry already (its seq): none is appended again. */
  completedSeq?: number;
}

// A held erasure (its account deactivated) is still under way: it runs on reactivation.
const UNFINISHED = ['pending', 'running', 'retrying', 'held'];

type ErasureRow = {
  id: string;
  tenant_id: string;
  partner_subject_sealed: string;
  status: string;
  submissions: number;
  results: number;
  artifacts: number;
  requested_at: string | Date;
  completed_at: string | Date | null;
};

/**
 * Erasure of a subject's data (docs/data-lifecycle.md). A request records the erasure and one job
 * per submission of the subject in one transaction; each job removes its submission with
 * everything derived from it (`eraseSubmission`) in the transaction that completes it, and the
 * last one completes the erasure. Retention erases through the same `eraseSubmission`.
 */
export class ErasureRepository {
  constructor(
    private readonly driver: Driver,
    private readonly deps: {
      jobs: JobsRepository;
      audit: AuditRepository;
      ledger: LedgerStateRepository;
      sealer: () => Sealer;
      maxAttempts: number;
    },
  ) {}

  /**
   * Records an erasure request in `trx`: the subject's pending erasure when every submission of
   * the subject is already being erased by it, else a new one over the submissions no erasure
   * covers yet (completed at once, with zero counts, when there are none: a request does not
   * reveal whether the subject exists). Returns it, and whether jobs were enqueued. A new erasure
   * is appended to the erasure ledger last, in `trx` (on disk before the request is answered).
   */
  async request(
    trx: Executor,
    tenantId: string,
    partnerSubjectId: string,
    origin: AuditOrigin,
    now: Date,
    use: LedgerUse = {},
  ): Promise<{ erasure: ErasureRecord; enqueued: boolean }> {
    const subjectId = subjectIdFor(tenantId, partnerSubjectId);
    const uncovered = await this.uncoveredSubmissions(trx, tenantId, subjectId);
    const audit = (action: 'subject.erasure_requested' | 'subject.erased', erasureId: string) =>
      this.deps.audit.record(
        trx,
        tenantId,
        { action, resourceType: 'erasure', resourceId: erasureId },
        origin,
        now,
      );

    if (uncovered.length === 0) {
      const pending = await this.pendingErasure(trx, tenantId, subjectId);
      if (pending) {
        await audit('subject.erasure_requested', pending.id);
        return { erasure: this.toRecord(pending), enqueued: false };
      }
    }

    const erasureId = use.replayOf?.erasureId ?? use.memo?.entry?.erasureId ?? newId();
    const nowIso = now.toISOString();
    const row = {
      id: erasureId,
      tenant_id: tenantId,
      subject_id: subjectId,
      partner_subject_sealed: this.deps.sealer().seal(partnerSubjectId, sealContext(erasureId)),
      status: uncovered.length > 0 ? 'pending' : 'completed',
      remaining: uncovered.length,
      submissions: 0,
      results: 0,
      artifacts: 0,
      requested_at: nowIso,
      completed_at: uncovered.length > 0 ? null : nowIso,
      ledger_completed_seq: use.completedSeq ?? null,
    } satisfies ErasureRow & { subject_id: string; remaining: number; ledger_completed_seq: number | null };
    await trx.insertInto('erasures').values(row).execute();
    for (const { id } of uncovered) await this.enqueueErasure(trx, tenantId, erasureId, id, origin, now);
    await audit('subject.erasure_requested', erasureId);
    if (uncovered.length === 0) await audit('subject.erased', erasureId);
    if (!use.replayOf) {
      const completedAtOnce = uncovered.length === 0;
      await this.ledgerRequested(trx, { tenantId, erasureId, partnerSubjectId, now, completedAtOnce }, use);
    }
    return { erasure: this.toRecord(row), enqueued: uncovered.length > 0 };
  }

  /**
   * The ledger's `requested` entry of a new erasure (and its `completed` one, when it completed at
   * once): appended once; a second attempt settles what the first appended (`memo`: the last).
   */
  private async ledgerRequested(
    trx: Executor,
    e: { tenantId: string; erasureId: string; partnerSubjectId: string; now: Date; completedAtOnce: boolean },
    use: LedgerUse,
  ): Promise<void> {
    const appended = use.memo?.entry;
    if (appended?.erasureId === e.erasureId) {
      await this.deps.ledger.advance(trx, appended);
      return;
    }
    const at = e.now.toISOString();
    const ledger = this.deps.ledger;
    const fields: LedgerFields[] = [
      {
        kind: 'requested',
        at,
        tenantId: e.tenantId,
        erasureId: e.erasureId,
        subject: ledger.book().subjectHash(e.tenantId, e.partnerSubjectId),
      },
    ];
    if (e.completedAtOnce) {
      fields.push({ kind: 'completed', at, tenantId: e.tenantId, erasureId: e.erasureId, subject: null });
    }
    const entry = (await ledger.appendAll(trx, fields)).at(-1);
    if (use.memo) use.memo.entry = entry;
  }

  /**
   * The ledger's `completed` entry of an erasure, in the transaction that completed it; none when
   * the ledger holds one already (`inLedger`: a replayed erasure whose original completed).
   */
  async ledgerCompleted(
    trx: Executor,
    completed: { tenantId: string; erasureId: string; inLedger: boolean },
    now: Date,
    memo: { entry?: LedgerEntry },
  ): Promise<void> {
    if (completed.inLedger) return;
    const { tenantId, erasureId } = completed;
    if (memo.entry) {
      await this.deps.ledger.advance(trx, memo.entry);
      return;
    }
    memo.entry = await this.deps.ledger.append(trx, {
      kind: 'completed',
      at: now.toISOString(),
      tenantId,
      erasureId,
      subject: null,
    });
  }

  /** The subject's submissions that no unfinished erasure job is erasing yet. */
  private uncoveredSubmissions(trx: Executor, tenantId: string, subjectId: string) {
    return trx
      .selectFrom('submissions as s')
      .select('s.id')
      .where('s.tenant_id', '=', tenantId)
      .where('s.subject_id', '=', subjectId)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom('jobs as j')
              .select('j.id')
              .whereRef('j.submission_id', '=', 's.id')
              .where('j.type', '=', ERASURE_JOB_TYPE)
              .where('j.status', 'in', UNFINISHED),
          ),
        ),
      )
      .orderBy('s.id')
      .execute();
  }

  /** The subject's latest erasure still under way. */
  private pendingErasure(trx: Executor, tenantId: string, subjectId: string) {
    return trx
      .selectFrom('erasures')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('subject_id', '=', subjectId)
      .where('status', '=', 'pending')
      .orderBy('requested_at', 'desc')
      .executeTakeFirst();
  }

  /** The job that erases one submission of the erasure, with the request's ids. */
  private async enqueueErasure(
    trx: Executor,
    tenantId: string,
    erasureId: string,
    submissionId: string,
    origin: AuditOrigin,
    now: Date,
  ): Promise<void> {
    const job: NewJob = {
      type: ERASURE_JOB_TYPE,
      tenantId,
      submissionId,
      payload: { erasureId },
      correlationId: origin.correlationId ?? null,
      requestId: origin.requestId,
      acceptedAt: now.toISOString(),
      slaDeadlineAt: null,
      maxAttempts: this.deps.maxAttempts,
    };
    await this.deps.jobs.enqueue(trx, job, now);
  }

  /** The account's erasure. */
  get(tenantId: string, erasureId: string): Promise<ErasureRecord | undefined> {
    return this.read(erasureId, tenantId);
  }

  /**
   * One account's erasures, newest first (`erasures_requested_idx`); `after`: the last one's
   * (requestedAt, erasureId).
   */
  async list(tenantId: string, q: ErasureListQuery): Promise<KeysetPage<ErasureRecord>> {
    const query = this.driver.db.selectFrom('erasures').selectAll().where('tenant_id', '=', tenantId);
    const page = await keysetPage(query, { at: 'requested_at', id: 'id' }, q);
    return { items: page.items.map((row) => this.toRecord(row)), more: page.more };
  }

  /** An erasure of any account (the operator's `erasures show`). */
  find(erasureId: string): Promise<ErasureRecord | undefined> {
    return this.read(erasureId);
  }

  private async read(erasureId: string, tenantId?: string): Promise<ErasureRecord | undefined> {
    let query = this.driver.db.selectFrom('erasures').selectAll().where('id', '=', erasureId);
    if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
    const row = await query.executeTakeFirst();
    return row ? this.toRecord(row) : undefined;
  }

  /**
   * Counts one erased submission towards its erasure; the last one completes it. Returns the
   * erasure's account when this call completed it.
   */
  async progress(
    trx: Executor,
    erasureId: string,
    counts: ErasureCounts,
    now: Date,
  ): Promise<{ completed: { tenantId: string; erasureId: string; inLedger: boolean } | undefined }> {
    await trx
      .updateTable('erasures')
      .set((eb) => ({
        remaining: eb('remaining', '-', 1),
        submissions: eb('submissions', '+', counts.submissions),
        results: eb('results', '+', counts.results),
        artifacts: eb('artifacts', '+', counts.artifacts),
      }))
      .where('id', '=', erasureId)
      .where('status', '=', 'pending')
      .execute();
    const completed = await trx
      .updateTable('erasures')
      .set({ status: 'completed', completed_at: now.toISOString() })
      .where('id', '=', erasureId)
      .where('status', '=', 'pending')
      .where('remaining', '<=', 0)
      .returning(['tenant_id', 'ledger_completed_seq'])
      .executeTakeFirst();
    if (!completed) return { completed: undefined };
    return {
      completed: {
        tenantId: completed.tenant_id,
        erasureId,
        inLedger: completed.ledger_completed_seq !== null,
      },
    };
  }

  /** Whether the database holds an erasure of this id (of any account, in any state). */
  async exists(trx: Executor, erasureId: string): Promise<boolean> {
    const row = await trx.selectFrom('erasures').select('id').where('id', '=', erasureId).executeTakeFirst();
    return row !== undefined;
  }

  /** Every partner subject reference an account's submissions carry (a replay matches them by keyed hash). */
  async subjectsOf(trx: Executor, tenantId: string): Promise<string[]> {
    const rows = await trx
      .selectFrom('submissions')
      .select('partner_subject_id')
      .distinct()
      .where('tenant_id', '=', tenantId)
      .execute();
    return rows.map((r) => r.partner_subject_id);
  }

  /** Every erasure still under way (a replay waits for them all). */
  async pendingIds(db: Executor = this.driver.db): Promise<string[]> {
    const rows = await db.selectFrom('erasures').select('id').where('status', '=', 'pending').execute();
    return rows.map((r) => r.id);
  }

  /** How far the given erasures are: how many are still pending, and the submissions all removed. */
  async progressOf(ids: string[]): Promise<{ pending: number; submissions: number }> {
    if (ids.length === 0) return { pending: 0, submissions: 0 };
    const rows = await this.driver.db
      .selectFrom('erasures')
      .select(['status', 'submissions'])
      .where('id', 'in', ids)
      .execute();
    return {
      pending: rows.filter((r) => r.status !== 'completed').length,
      submissions: rows.reduce((n, r) => n + r.submissions, 0),
    };
  }

  /**
   * The ledger's `completed` entry of a pending erasure was met by a replay: the erasure must
   * still complete here (the database went back past it), but appends no second such entry.
   * True when an erasure of that id is pending.
   */
  async completionInLedger(trx: Executor, erasureId: string, seq: number): Promise<boolean> {
    const updated = await trx
      .updateTable('erasures')
      .set({ ledger_completed_seq: seq })
      .where('id', '=', erasureId)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    return Number(updated.numUpdatedRows) > 0;
  }

  /** The submission's artifacts: their bytes in an object store go with the submission. */
  async artifactIdsOf(db: Executor, submissionId: string): Promise<string[]> {
    const rows = await db
      .selectFrom('artifacts')
      .select('id')
      .where('submission_id', '=', submissionId)
      .execute();
    return rows.map((r) => r.id);
  }

  /**
   * Removes one submission and everything kept because of it, in `trx`: its raw and normalised
   * bodies, its result, the report bytes, its jobs (payloads and attempts), its `result.ready`
   * event with the delivery attempts and pending deliveries. Its idempotency record (hashes and
   * ids only) stays until it expires: a replay of the key finds its submission gone and answers
   * 410 instead of creating it again.
   *
   * The jobs go first: a step finishing at the same moment completes its job fenced on the row
   * (`JobsRepository.complete`), so on PostgreSQL this waits for that commit, or that step finds
   * its job gone and rolls back whatever it meant to write. Jobs are looked for again last, for
   * a step that committed a next job while this ran. `keepJobId` is the erasure's own job.
   */
  async eraseSubmission(
    trx: Executor,
    submissionId: string,
    keepJobId: string | null,
  ): Promise<ErasureCounts> {
    await this.deleteJobs(trx, submissionId, keepJobId);
    const result = await trx
      .selectFrom('results')
      .select('id')
      .where('submission_id', '=', submissionId)
      .executeTakeFirst();
    let artifacts = 0;
    if (result) {
      const events = trx.selectFrom('webhook_events').select('id').where('result_id', '=', result.id);
      await trx.deleteFrom('webhook_attempts').where('event_id', 'in', events).execute();
      await trx.deleteFrom('webhook_recovery_events').where('event_id', 'in', events).execute();
      await trx.deleteFrom('webhook_events').where('result_id', '=', result.id).execute();
      await trx
        .deleteFrom('artifact_contents')
        .where(
          'artifact_id',
          'in',
          trx.selectFrom('artifacts').select('id').where('result_id', '=', result.id),
        )
        .execute();
      const deleted = await trx.deleteFrom('artifacts').where('result_id', '=', result.id).executeTakeFirst();
      artifacts = Number(deleted.numDeletedRows);
      await trx.deleteFrom('results').where('id', '=', result.id).execute();
    }
    const submissions = await trx.deleteFrom('submissions').where('id', '=', submissionId).executeTakeFirst();
    await this.deleteJobs(trx, submissionId, keepJobId);
    return { submissions: Number(submissions.numDeletedRows), results: result ? 1 : 0, artifacts };
  }

  private async deleteJobs(trx: Executor, submissionId: string, keepJobId: string | null): Promise<void> {
    let query = trx.deleteFrom('jobs').where('submission_id', '=', submissionId);
    if (keepJobId !== null) query = query.where('id', '<>', keepJobId);
    const deleted = await query.returning('id').execute();
    if (deleted.length === 0) return;
    await trx
      .deleteFrom('job_attempts')
      .where(
        'job_id',
        'in',
        deleted.map((row) => row.id),
      )
      .execute();
  }

  private toRecord(row: ErasureRow): ErasureRecord {
    return {
      erasureId: row.id,
      tenantId: row.tenant_id,
      partnerSubjectId: this.deps.sealer().open(row.partner_subject_sealed, sealContext(row.id)),
      status: row.status === 'completed' ? 'completed' : 'pending',
      requestedAt: iso(row.requested_at),
      completedAt: isoOrNull(row.completed_at),
      counts: { submissions: row.submissions, results: row.results, artifacts: row.artifacts },
    };
  }
}

function sealContext(erasureId: string): string {
  return `erasure:${erasureId}`;
}
