import type { Kysely } from 'kysely';
import type { ModelResult } from '../../domain/model/types.js';
import { ARTIFACT_TYPES, type ArtifactType } from '../../domain/submission/outcomes.js';
import { iso, isoOrNull } from '../codec.js';
import type { Database } from '../database.js';
import type { AvailableArtifactValues, Driver } from '../driver.js';
import { resultIdFor } from '../ids.js';
import { type StoredJson, unpackJson } from '../packing/packed-json.js';
import { type Executor, type NamedQuery, namedQuery, slot } from '../prepared.js';
import { pendingArtifactRow, resultRow } from '../rows.js';
import { namedPartnerId, touchResult } from '../statements.js';

export interface ArtifactRecord {
  artifactId: string;
  type: string;
  availability: string;
  contentType: string | null;
  fileName: string | null;
  byteSize: number | null;
  generatedAt: string | null;
}

export interface ResultRecord {
  resultId: string;
  submissionId: string;
  partnerSubmissionId: string;
  submissionStatus: string;
  updatedAt: string;
  bundle: ModelResult;
  artifacts: ArtifactRecord[];
}

/** The artifact columns a result read shows (`rows.ts` has the full row an insert writes). */
interface ArtifactSummaryRow {
  id: string;
  type: string;
  availability: string;
  content_type: string | null;
  file_name: string | null;
  byte_size: number | null;
  generated_at: string | Date | null;
}

function toArtifact(row: ArtifactSummaryRow): ArtifactRecord {
  return {
    artifactId: row.id,
    type: row.type,
    availability: row.availability,
    contentType: row.content_type,
    fileName: row.file_name,
    byteSize: row.byte_size,
    generatedAt: isoOrNull(row.generated_at),
  };
}

const ARTIFACT_SUMMARY_COLUMNS = [
  'id',
  'type',
  'availability',
  'content_type',
  'file_name',
  'byte_size',
  'generated_at',
] as const;

/** What the render step records about one artifact whose bytes it stored. */
export type AvailableArtifact = AvailableArtifactValues;

/**
 * Results and artifacts as the pipeline writes them (unscoped: workers only). The per-job
 * statements are built once and run as prepared statements; the writes whose shape differs
 * per database (one CTE on PostgreSQL) are the driver's.
 */
export class ResultsRepository {
  private readonly q: Record<'withArtifacts' | 'touch', NamedQuery>;

  constructor(private readonly driver: Driver) {
    const db = driver.db;
    this.q = {
      // One row per artifact (one with nulls when there are none), the bundle on each.
      withArtifacts: namedQuery(
        db
          .selectFrom('results as r')
          .leftJoin('artifacts as a', 'a.result_id', 'r.id')
          .select([
            'r.id as result_id',
            'r.bundle',
            'a.id as artifact_id',
            'a.type',
            'a.availability',
            'a.content_type',
            'a.file_name',
            'a.byte_size',
            'a.generated_at',
          ])
          .where('r.submission_id', '=', slot('submissionId'))
          .orderBy('a.type')
          .compile(),
      ),
      touch: namedQuery(touchResult(db).compile()),
    };
  }

  /**
   * Creates the submission's result with pending artifacts, or leaves the one that exists:
   * a re-run of the scoring step never makes a second result.
   */
  async createOnce(
    trx: Executor,
    input: {
      tenantId: string;
      submissionId: string;
      bundle: ModelResult;
      artifactTypes: readonly ArtifactType[];
    },
    now: Date,
  ): Promise<{ resultId: string; created: boolean }> {
    const resultId = resultIdFor(input.submissionId);
    const result = resultRow(
      {
        id: resultId,
        tenantId: input.tenantId,
        submissionId: input.submissionId,
        bundleJson: JSON.stringify(input.bundle),
      },
      now,
      this.driver,
    );
    const artifacts = input.artifactTypes.map((type) => pendingArtifactRow(result, type));
    return { resultId, created: await this.driver.createResult(trx, result, artifacts) };
  }

  /**
   * The submission's result and its artifacts (by type), read in one statement. The bundle stays
   * JSON text: the render step hands it to a render thread as it is.
   */
  async forSubmission(
    db: Executor,
    submissionId: string,
  ): Promise<{ resultId: string; bundleJson: string; artifacts: ArtifactRecord[] } | undefined> {
    const rows = await this.driver.runner.all<
      { result_id: string; bundle: StoredJson; artifact_id: string | null } & Omit<ArtifactSummaryRow, 'id'>
    >(db, this.q.withArtifacts, { submissionId });
    const first = rows[0];
    if (!first) return undefined;
    const artifacts = rows.flatMap((row) =>
      row.artifact_id === null ? [] : [toArtifact({ ...row, id: row.artifact_id })],
    );
    const bundleJson = unpackJson(first.bundle);
    return { resultId: first.result_id, bundleJson, artifacts };
  }

  /**
   * Marks the artifacts available and touches their result; with `withBytes`, stores their
   * bytes in the same transaction (so a link is never handed out before its bytes are durable).
   * Without it their bytes were written to the object store before this commit.
   */
  storeAvailable(
    trx: Executor,
    resultId: string,
    artifacts: readonly AvailableArtifact[],
    now: Date,
    withBytes: boolean,
  ): Promise<void> {
    return this.driver.storeArtifacts(trx, resultId, artifacts, now.toISOString(), withBytes);
  }

  async markPendingUnavailable(trx: Executor, resultId: string, now: Date): Promise<number> {
    const res = await trx
      .updateTable('artifacts')
      .set({ availability: 'unavailable', updated_at: now.toISOString() })
      .where('result_id', '=', resultId)
      .where('availability', '=', 'pending')
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  async touch(trx: Executor, resultId: string, now: Date): Promise<void> {
    await this.driver.runner.run(trx, this.q.touch, { resultId, now: now.toISOString() });
  }
}

/** Result reads bound to one tenant. */
export class TenantResults {
  constructor(
    private readonly db: Kysely<Database>,
    readonly tenantId: string,
  ) {}

  /** The named result's id if it is this account's; with none named, its newest completed one. */
  async locate(resultId: string | undefined): Promise<string | undefined> {
    let query = this.db
      .selectFrom('results as r')
      .innerJoin('submissions as s', 's.id', 'r.submission_id')
      .select('r.id')
      .where('r.tenant_id', '=', this.tenantId);
    query =
      resultId === undefined
        ? query.where('s.status', '=', 'completed').orderBy('s.updated_at', 'desc').orderBy('r.id', 'desc')
        : query.where('r.id', '=', resultId);
    const row = await query.limit(1).executeTakeFirst();
    return row?.id;
  }

  async get(resultId: string): Promise<ResultRecord | undefined> {
    const row = await this.db
      .selectFrom('results')
      .innerJoin('submissions', 'submissions.id', 'results.submission_id')
      .select([
        'results.id',
        'results.submission_id',
        'results.bundle',
        'results.updated_at',
        'submissions.partner_submission_id',
        'submissions.status',
      ])
      .where('results.tenant_id', '=', this.tenantId)
      .where('results.id', '=', resultId)
      .executeTakeFirst();
    if (!row) return undefined;
    const artifacts = await this.db
      .selectFrom('artifacts')
      .select(ARTIFACT_SUMMARY_COLUMNS)
      .where('tenant_id', '=', this.tenantId)
      .where('result_id', '=', resultId)
      .execute();
    const order = (t: string) => ARTIFACT_TYPES.indexOf(t as ArtifactType);
    return {
      resultId: row.id,
      submissionId: row.submission_id,
      partnerSubmissionId: row.partner_submission_id,
      submissionStatus: row.status,
      updatedAt: iso(row.updated_at),
      bundle: JSON.parse(unpackJson(row.bundle)) as ModelResult,
      artifacts: artifacts.map(toArtifact).sort((a, b) => order(a.type) - order(b.type)),
    };
  }

  /** What a standard export of the result (FHIR) is built from: the stored submission and result. */
  async exportSource(resultId: string): Promise<ResultExportSource | undefined> {
    const row = await this.db
      .selectFrom('results as r')
      .innerJoin('submissions as s', 's.id', 'r.submission_id')
      .innerJoin('partners as p', 'p.id', 's.partner_id')
      .select([
        'r.id',
        'r.bundle',
        's.normalised_body',
        's.partner_subject_id',
        's.received_at',
        namedPartnerId(),
      ])
      .where('r.tenant_id', '=', this.tenantId)
      .where('r.id', '=', resultId)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      resultId: row.id,
      partnerId: String(row.named_partner_id),
      partnerSubjectId: row.partner_subject_id,
      receivedAt: iso(row.received_at),
      normalisedBody: unpackJson(row.normalised_body),
      bundle: JSON.parse(unpackJson(row.bundle)) as ModelResult,
    };
  }
}

export interface ResultExportSource {
  resultId: string;
  /** The credential's id as partners know it (the live one, in both modes). */
  partnerId: string;
  partnerSubjectId: string;
  receivedAt: string;
  /** The normalised submission, as stored (JSON). */
  normalisedBody: string;
  bundle: ModelResult;
}
