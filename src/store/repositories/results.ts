import type { Kysely, Transaction } from 'kysely';
import type { ModelResult } from '../../domain/model/types.js';
import { iso, isoOrNull, json } from '../codec.js';
import type { Database } from '../database.js';
import { artifactIdFor, resultIdFor } from '../ids.js';
import { type NamedQuery, namedQuery, type PreparedRunner, slot } from '../prepared.js';

export const ARTIFACT_TYPES = ['json', 'html', 'pdf'] as const;
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];

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

type Db = Kysely<Database> | Transaction<Database>;

function toArtifact(row: {
  id: string;
  type: string;
  availability: string;
  content_type: string | null;
  file_name: string | null;
  byte_size: number | null;
  generated_at: string | Date | null;
}): ArtifactRecord {
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

const ARTIFACT_COLUMNS = [
  'id',
  'type',
  'availability',
  'content_type',
  'file_name',
  'byte_size',
  'generated_at',
] as const;

interface ArtifactRow {
  id: string;
  type: string;
  availability: string;
  content_type: string | null;
  file_name: string | null;
  byte_size: number | null;
  generated_at: string | Date | null;
}

/**
 * Results and artifacts as the pipeline writes them (unscoped: workers only). The per-job
 * statements are built once and run as prepared statements.
 */
export class ResultsRepository {
  private readonly q: Record<
    'resultBySubmission' | 'insertResult' | 'insertArtifact' | 'artifactsOf' | 'markAvailable' | 'touch',
    NamedQuery
  >;

  constructor(
    db: Kysely<Database>,
    private readonly runner: PreparedRunner,
  ) {
    this.q = {
      resultBySubmission: namedQuery(
        db
          .selectFrom('results')
          .select(['id', 'bundle'])
          .where('submission_id', '=', slot('submissionId'))
          .compile(),
      ),
      insertResult: namedQuery(
        db
          .insertInto('results')
          .values({
            id: slot('id'),
            tenant_id: slot('tenantId'),
            submission_id: slot('submissionId'),
            bundle: slot('bundle'),
            created_at: slot('now'),
            updated_at: slot('now'),
          })
          .compile(),
      ),
      insertArtifact: namedQuery(
        db
          .insertInto('artifacts')
          .values({
            id: slot('id'),
            tenant_id: slot('tenantId'),
            submission_id: slot('submissionId'),
            result_id: slot('resultId'),
            type: slot('type'),
            availability: slot('pending'),
            content_type: slot('nothing'),
            file_name: slot('nothing'),
            byte_size: slot('nothing'),
            sha256: slot('nothing'),
            generated_at: slot('nothing'),
            created_at: slot('now'),
            updated_at: slot('now'),
          })
          .compile(),
      ),
      artifactsOf: namedQuery(
        db
          .selectFrom('artifacts')
          .select(ARTIFACT_COLUMNS)
          .where('result_id', '=', slot('resultId'))
          .orderBy('type')
          .compile(),
      ),
      markAvailable: namedQuery(
        db
          .updateTable('artifacts')
          .set({
            availability: slot('available'),
            content_type: slot('contentType'),
            file_name: slot('fileName'),
            byte_size: slot<number>('byteSize'),
            sha256: slot('sha256'),
            generated_at: slot('now'),
            updated_at: slot('now'),
          })
          .where('id', '=', slot('id'))
          .compile(),
      ),
      touch: namedQuery(
        db
          .updateTable('results')
          .set({ updated_at: slot('now') })
          .where('id', '=', slot('id'))
          .compile(),
      ),
    };
  }

  /**
   * Creates the submission's result with pending artifacts, or returns the one that exists:
   * a re-run of the scoring step never makes a second result.
   */
  async createOnce(
    trx: Db,
    input: {
      tenantId: string;
      submissionId: string;
      bundle: ModelResult;
      artifactTypes: readonly ArtifactType[];
    },
    now: Date,
  ): Promise<{ resultId: string; created: boolean }> {
    const [existing] = await this.runner.all<{ id: string }>(trx, this.q.resultBySubmission, {
      submissionId: input.submissionId,
    });
    if (existing) return { resultId: existing.id, created: false };
    const resultId = resultIdFor(input.submissionId);
    const nowIso = now.toISOString();
    await this.runner.run(trx, this.q.insertResult, {
      id: resultId,
      tenantId: input.tenantId,
      submissionId: input.submissionId,
      bundle: JSON.stringify(input.bundle),
      now: nowIso,
    });
    for (const type of input.artifactTypes) {
      await this.runner.run(trx, this.q.insertArtifact, {
        id: artifactIdFor(resultId, type),
        tenantId: input.tenantId,
        submissionId: input.submissionId,
        resultId,
        type,
        pending: 'pending',
        nothing: null,
        now: nowIso,
      });
    }
    return { resultId, created: true };
  }

  async forSubmission(
    db: Db,
    submissionId: string,
  ): Promise<{ resultId: string; bundle: ModelResult; artifacts: ArtifactRecord[] } | undefined> {
    const [row] = await this.runner.all<{ id: string; bundle: string | object }>(
      db,
      this.q.resultBySubmission,
      {
        submissionId,
      },
    );
    if (!row) return undefined;
    const artifacts = await this.runner.all<ArtifactRow>(db, this.q.artifactsOf, { resultId: row.id });
    return { resultId: row.id, bundle: json<ModelResult>(row.bundle)!, artifacts: artifacts.map(toArtifact) };
  }

  /** Marks an artifact available once its bytes are durable in the artifact store. */
  async markAvailable(
    trx: Db,
    input: { artifactId: string; byteSize: number; contentType: string; fileName: string; sha256: string },
    now: Date,
  ): Promise<void> {
    await this.runner.run(trx, this.q.markAvailable, {
      available: 'available',
      contentType: input.contentType,
      fileName: input.fileName,
      byteSize: input.byteSize,
      sha256: input.sha256,
      now: now.toISOString(),
      id: input.artifactId,
    });
  }

  async markPendingUnavailable(trx: Db, resultId: string, now: Date): Promise<number> {
    const res = await trx
      .updateTable('artifacts')
      .set({ availability: 'unavailable', updated_at: now.toISOString() })
      .where('result_id', '=', resultId)
      .where('availability', '=', 'pending')
      .executeTakeFirst();
    return Number(res.numUpdatedRows);
  }

  async touch(trx: Db, resultId: string, now: Date): Promise<void> {
    await trx
      .updateTable('results')
      .set({ updated_at: now.toISOString() })
      .where('id', '=', resultId)
      .execute();
  }

  /** What a download link points at: the signature already proved the right to it. */
  async downloadable(
    db: Db,
    artifactId: string,
  ): Promise<{ contentType: string; fileName: string; byteSize: number; sha256: string } | undefined> {
    const row = await db
      .selectFrom('artifacts')
      .select(['content_type', 'file_name', 'availability', 'byte_size', 'sha256'])
      .where('id', '=', artifactId)
      .executeTakeFirst();
    if (row?.availability !== 'available' || !row.content_type || !row.file_name || !row.sha256)
      return undefined;
    return {
      contentType: row.content_type,
      fileName: row.file_name,
      byteSize: row.byte_size ?? 0,
      sha256: row.sha256,
    };
  }
}

/** Result reads bound to one tenant. */
export class TenantResults {
  constructor(
    private readonly db: Kysely<Database>,
    readonly tenantId: string,
  ) {}

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
      .select(ARTIFACT_COLUMNS)
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
      bundle: json<ModelResult>(row.bundle)!,
      artifacts: artifacts.map(toArtifact).sort((a, b) => order(a.type) - order(b.type)),
    };
  }
}
