import type { Kysely, Transaction } from 'kysely';
import type { SqlDialect } from '../codec.js';
import { iso } from '../codec.js';
import type { Database } from '../database.js';
import { newId, subjectIdFor } from '../ids.js';

export interface IngestCommand {
  tenantId: string;
  partnerId: string;
  idempotencyKeyHash: string;
  requestHash: string;
  correlationId: string;
  requestId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  originalBody: string;
  normalisedBody: string;
  documentCount: number;
  markerCount: number;
}

export interface Accepted {
  submissionId: string;
  jobId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  receivedAt: string;
}

export type IngestOutcome =
  | ({ kind: 'created' } & Accepted)
  | ({ kind: 'replayed' } & Accepted)
  | { kind: 'mismatch' };

export interface IngestPolicy {
  idempotencyTtlMs: number;
  slaSeconds: number;
  maxAttempts: number;
  maxBatch: number;
}

interface Pending {
  command: IngestCommand;
  resolve(outcome: IngestOutcome): void;
  reject(error: unknown): void;
}

/**
 * Stores accepted submissions with their first job and idempotency record.
 *
 * Group commit: every command that arrives during one turn of the event loop is written in one
 * transaction, so one durable (fsync'd) commit acknowledges many requests. No promise resolves
 * before its transaction has committed, so a 202 always means the rows are on disk.
 */
export class IngestWriter {
  private queue: Pending[] = [];
  private scheduled = false;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    readonly dialect: SqlDialect,
    private readonly policy: IngestPolicy,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  ingest(command: IngestCommand): Promise<IngestOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ command, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => {
          this.inFlight = this.inFlight.then(() => this.flush());
        });
      }
    });
  }

  /** Resolves once everything queued so far is committed (used at shutdown). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.scheduled) {
      await new Promise((r) => setImmediate(r));
      await this.inFlight;
    }
    await this.inFlight;
  }

  private async flush(): Promise<void> {
    this.scheduled = false;
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.policy.maxBatch);
      try {
        const outcomes = await this.db.transaction().execute(async (trx) => {
          const out: IngestOutcome[] = [];
          for (const p of batch) out.push(await this.writeOne(trx, p.command));
          return out;
        });
        for (const [i, p] of batch.entries()) p.resolve(outcomes[i]!);
      } catch (batchError) {
        // One bad command must not fail its neighbours: retry each alone to isolate it.
        if (batch.length === 1) {
          batch[0]!.reject(batchError);
          continue;
        }
        for (const p of batch) {
          try {
            p.resolve(await this.db.transaction().execute((trx) => this.writeOne(trx, p.command)));
          } catch (error) {
            p.reject(error);
          }
        }
      }
    }
  }

  private async writeOne(trx: Transaction<Database>, c: IngestCommand): Promise<IngestOutcome> {
    const now = this.clock();
    const nowIso = now.toISOString();
    const submissionId = newId();
    const jobId = newId();

    // Claims the key, or takes it over once the previous claim has expired (24-hour scope).
    const claimed = await trx
      .insertInto('idempotency_keys')
      .values({
        partner_id: c.partnerId,
        key_hash: c.idempotencyKeyHash,
        request_hash: c.requestHash,
        submission_id: submissionId,
        job_id: jobId,
        created_at: nowIso,
        expires_at: new Date(now.getTime() + this.policy.idempotencyTtlMs).toISOString(),
      })
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
          .where('idempotency_keys.expires_at', '<=', nowIso),
      )
      .returning(['submission_id'])
      .executeTakeFirst();

    if (!claimed || claimed.submission_id !== submissionId) {
      return this.replay(trx, c);
    }

    await trx
      .insertInto('submissions')
      .values({
        id: submissionId,
        tenant_id: c.tenantId,
        partner_id: c.partnerId,
        subject_id: subjectIdFor(c.tenantId, c.partnerSubjectId),
        partner_submission_id: c.partnerSubmissionId,
        partner_subject_id: c.partnerSubjectId,
        status: 'received',
        correlation_id: c.correlationId,
        request_id: c.requestId,
        original_body: c.originalBody,
        normalised_body: c.normalisedBody,
        document_count: c.documentCount,
        marker_count: c.markerCount,
        received_at: nowIso,
        created_at: nowIso,
        updated_at: nowIso,
      })
      .execute();

    await trx
      .insertInto('jobs')
      .values({
        id: jobId,
        tenant_id: c.tenantId,
        submission_id: submissionId,
        type: 'pipeline.ingest_validate',
        status: 'pending',
        payload: null,
        correlation_id: c.correlationId,
        request_id: c.requestId,
        attempts: 0,
        max_attempts: this.policy.maxAttempts,
        run_at: nowIso,
        locked_until: null,
        locked_by: null,
        queued_at: nowIso,
        accepted_at: nowIso,
        started_at: null,
        completed_at: null,
        failed_at: null,
        sla_deadline_at: new Date(now.getTime() + this.policy.slaSeconds * 1000).toISOString(),
        error_summary: null,
        created_at: nowIso,
        updated_at: nowIso,
      })
      .execute();

    return {
      kind: 'created',
      submissionId,
      jobId,
      partnerSubmissionId: c.partnerSubmissionId,
      partnerSubjectId: c.partnerSubjectId,
      receivedAt: nowIso,
    };
  }

  private async replay(trx: Transaction<Database>, c: IngestCommand): Promise<IngestOutcome> {
    const prior = await trx
      .selectFrom('idempotency_keys')
      .innerJoin('submissions', 'submissions.id', 'idempotency_keys.submission_id')
      .select([
        'idempotency_keys.request_hash',
        'idempotency_keys.submission_id',
        'idempotency_keys.job_id',
        'submissions.partner_submission_id',
        'submissions.partner_subject_id',
        'submissions.received_at',
      ])
      .where('idempotency_keys.partner_id', '=', c.partnerId)
      .where('idempotency_keys.key_hash', '=', c.idempotencyKeyHash)
      .executeTakeFirstOrThrow();
    if (prior.request_hash !== c.requestHash) return { kind: 'mismatch' };
    return {
      kind: 'replayed',
      submissionId: prior.submission_id,
      jobId: prior.job_id,
      partnerSubmissionId: prior.partner_submission_id,
      partnerSubjectId: prior.partner_subject_id,
      receivedAt: iso(prior.received_at),
    };
  }
}
