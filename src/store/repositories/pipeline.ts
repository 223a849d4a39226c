import type { ApiMode } from '../../domain/mode.js';
import type { SubmissionStatus } from '../../domain/statuses.js';
import { iso } from '../codec.js';
import type { Driver } from '../driver.js';
import { type StoredJson, unpackJson } from '../packing/packed-json.js';
import { type Executor as Db, type NamedQuery, namedQuery, type PreparedRunner, slot } from '../prepared.js';
import type { DoorCheck } from '../rows.js';
import { namedPartnerId, setSubmissionStatus } from '../statements.js';

export interface StoredSubmission {
  submissionId: string;
  tenantId: string;
  partnerId: string;
  /** The `partnerId` its body names: the live credential's id, in both modes. */
  namedPartnerId: string;
  /** Its account's mode: test submissions may ask for a simulation (domain/mode.ts). */
  mode: ApiMode;
  partnerSubmissionId: string;
  status: string;
  normalisedBody: string;
  receivedAt: string;
  correlationId: string;
  requestId: string;
  /** What the door's checks found; null for a row from before they were recorded. */
  doorCheck: DoorCheck | null;
}

interface Row {
  id: string;
  tenant_id: string;
  partner_id: string;
  named_partner_id: string;
  mode: ApiMode;
  partner_submission_id: string;
  status: string;
  normalised_body: StoredJson;
  received_at: string | Date;
  correlation_id: string;
  request_id: string;
  door_checks: string | null;
  door_outcome: string | null;
}

/**
 * What the pipeline steps read and write about a submission (unscoped: workers only). These
 * run for every job, so their SQL is built once and run as prepared statements.
 */
export class PipelineRepository {
  private readonly q: {
    load: NamedQuery;
    originalBody: NamedQuery;
    setStatus: NamedQuery;
    setNormalised: NamedQuery;
  };

  private readonly runner: PreparedRunner;

  constructor(private readonly driver: Driver) {
    const db = driver.db;
    this.runner = driver.runner;
    this.q = {
      load: namedQuery(
        db
          .selectFrom('submissions as s')
          .innerJoin('partners as p', 'p.id', 's.partner_id')
          .innerJoin('tenants as t', 't.id', 's.tenant_id')
          .select([
            's.id',
            's.tenant_id',
            's.partner_id',
            namedPartnerId(),
            't.mode',
            's.partner_submission_id',
            's.status',
            's.normalised_body',
            's.received_at',
            's.correlation_id',
            's.request_id',
            's.door_checks',
            's.door_outcome',
          ])
          .where('s.id', '=', slot('id'))
          .compile(),
      ),
      originalBody: namedQuery(
        db.selectFrom('submissions').select('original_body').where('id', '=', slot('id')).compile(),
      ),
      setStatus: namedQuery(setSubmissionStatus(db).compile()),
      setNormalised: namedQuery(
        db
          .updateTable('submissions')
          .set({ normalised_body: slot('body'), updated_at: slot('now') })
          .where('id', '=', slot('id'))
          .compile(),
      ),
    };
  }

  /**
   * A submission as the steps read it, without its original body: only a check step that runs
   * the checks again reads that (`originalBody`).
   */
  async load(db: Db, submissionId: string): Promise<StoredSubmission | undefined> {
    const [row] = await this.runner.all<Row>(db, this.q.load, { id: submissionId });
    if (!row) return undefined;
    return {
      submissionId: row.id,
      tenantId: row.tenant_id,
      partnerId: row.partner_id,
      namedPartnerId: row.named_partner_id,
      mode: row.mode,
      partnerSubmissionId: row.partner_submission_id,
      status: row.status,
      normalisedBody: unpackJson(row.normalised_body),
      receivedAt: iso(row.received_at),
      correlationId: row.correlation_id,
      requestId: row.request_id,
      doorCheck:
        row.door_checks !== null && row.door_outcome === 'passed'
          ? { checks: row.door_checks, outcome: 'passed' }
          : null,
    };
  }

  /** The body as the partner sent it. */
  async originalBody(db: Db, submissionId: string): Promise<string | undefined> {
    const [row] = await this.runner.all<{ original_body: StoredJson }>(db, this.q.originalBody, {
      id: submissionId,
    });
    return row ? unpackJson(row.original_body) : undefined;
  }

  async setStatus(db: Db, submissionId: string, status: SubmissionStatus, now: Date): Promise<void> {
    await this.runner.run(db, this.q.setStatus, { id: submissionId, status, now: now.toISOString() });
  }

  async setNormalised(db: Db, submissionId: string, normalisedBody: string, now: Date): Promise<void> {
    await this.runner.run(db, this.q.setNormalised, {
      id: submissionId,
      body: this.driver.storedDocument(normalisedBody, 'submission'),
      now: now.toISOString(),
    });
  }
}
