import { type Kysely, sql, type Transaction } from 'kysely';
import type { ModelResult } from '../../domain/model/types.js';
import { bool, iso, isoOrNull, json, type SqlDialect } from '../codec.js';
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

/** What the render step records about one artifact whose bytes it stored. */
export interface AvailableArtifact {
  artifactId: string;
  byteSize: number;
  contentType: string;
  fileName: string;
  sha256: string;
}

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
 *
 * On PostgreSQL each step's writes are one statement (data-modifying CTEs): every statement is
 * a round trip plus the server's per-statement work, which is what bounded the pipeline there
 * (docs/performance.md). SQLite runs statements in-process, where the plain ones cost less
 * than building a combined one, and it has no data-modifying CTEs.
 */
export class ResultsRepository {
  private readonly q: Record<
    'resultBySubmission' | 'withArtifacts' | 'insertResult' | 'insertArtifact' | 'markAvailable' | 'touch',
    NamedQuery
  >;
  /** PostgreSQL only: the result and its pending artifacts in one statement. */
  private readonly createPg: NamedQuery | undefined;
  /** PostgreSQL only: artifacts marked available and the result touched, by artifact count. */
  private readonly markAvailablePg = new Map<number, NamedQuery>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly runner: PreparedRunner,
    private readonly dialect: SqlDialect = 'sqlite',
  ) {
    this.q = {
      resultBySubmission: namedQuery(
        db
          .selectFrom('results')
          .select(['id', 'bundle'])
          .where('submission_id', '=', slot('submissionId'))
          .compile(),
      ),
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
    if (dialect === 'postgres') {
      // The insert does nothing when the result exists (a re-run), and then neither does the
      // artifacts' insert, which takes its rows from the result inserted.
      this.createPg = namedQuery(
        sql`with r as (
              insert into results (id, tenant_id, submission_id, bundle, created_at, updated_at)
              values (${slot('id')}, ${slot('tenantId')}, ${slot('submissionId')}, ${slot('bundle')}, ${slot('now')}, ${slot('now')})
              on conflict (submission_id) do nothing
              returning id
            ), a as (
              insert into artifacts (id, tenant_id, submission_id, result_id, type, availability, created_at, updated_at)
              select t.id, ${slot('tenantId')}, ${slot('submissionId')}, r.id, t.type, 'pending', ${slot('now')}, ${slot('now')}
              from r cross join unnest(${slot('artifactIds')}::uuid[], ${slot('types')}::text[]) as t(id, type)
            )
            select count(*)::int as created from r`.compile(db),
      );
    }
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
    const resultId = resultIdFor(input.submissionId);
    const nowIso = now.toISOString();
    if (this.createPg) {
      const [row] = await this.runner.all<{ created: number }>(trx, this.createPg, {
        id: resultId,
        tenantId: input.tenantId,
        submissionId: input.submissionId,
        bundle: JSON.stringify(input.bundle),
        now: nowIso,
        artifactIds: input.artifactTypes.map((type) => artifactIdFor(resultId, type)),
        types: [...input.artifactTypes],
      });
      return { resultId, created: row?.created === 1 };
    }
    const [existing] = await this.runner.all<{ id: string }>(trx, this.q.resultBySubmission, {
      submissionId: input.submissionId,
    });
    if (existing) return { resultId: existing.id, created: false };
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

  /**
   * The submission's result and its artifacts (by type), read in one statement. The bundle stays
   * JSON text: the render step hands it to a render thread as it is.
   */
  async forSubmission(
    db: Db,
    submissionId: string,
  ): Promise<{ resultId: string; bundleJson: string; artifacts: ArtifactRecord[] } | undefined> {
    const rows = await this.runner.all<
      { result_id: string; bundle: string | object; artifact_id: string | null } & Omit<ArtifactRow, 'id'>
    >(db, this.q.withArtifacts, { submissionId });
    const first = rows[0];
    if (!first) return undefined;
    const artifacts = rows.flatMap((row) =>
      row.artifact_id === null ? [] : [toArtifact({ ...row, id: row.artifact_id })],
    );
    const bundleJson = typeof first.bundle === 'string' ? first.bundle : JSON.stringify(first.bundle);
    return { resultId: first.result_id, bundleJson, artifacts };
  }

  /**
   * Marks artifacts available once their bytes are durable in the artifact store (in the same
   * transaction), and touches their result.
   */
  async markAvailable(
    trx: Db,
    resultId: string,
    artifacts: readonly AvailableArtifact[],
    now: Date,
  ): Promise<void> {
    const nowIso = now.toISOString();
    if (this.dialect === 'postgres' && artifacts.length > 0) {
      const values: Record<string, unknown> = { resultId, now: nowIso, available: 'available' };
      for (const [i, a] of artifacts.entries()) {
        Object.assign(values, {
          [`id${i}`]: a.artifactId,
          [`contentType${i}`]: a.contentType,
          [`fileName${i}`]: a.fileName,
          [`byteSize${i}`]: a.byteSize,
          [`sha256${i}`]: a.sha256,
        });
      }
      await this.runner.run(trx, this.markAvailableStatement(artifacts.length), values);
      return;
    }
    for (const a of artifacts) {
      await this.runner.run(trx, this.q.markAvailable, {
        available: 'available',
        contentType: a.contentType,
        fileName: a.fileName,
        byteSize: a.byteSize,
        sha256: a.sha256,
        now: nowIso,
        id: a.artifactId,
      });
    }
    await this.runner.run(trx, this.q.touch, { id: resultId, now: nowIso });
  }

  private markAvailableStatement(count: number): NamedQuery {
    let query = this.markAvailablePg.get(count);
    if (!query) {
      // One single-row update per artifact, by primary key: an `update … from (values …)` join
      // was planned as a scan of the whole artifacts table.
      const updates = Array.from(
        { length: count },
        (_, i) =>
          sql`${sql.raw(`a${i}`)} as (
            update artifacts set availability = ${slot('available')}, content_type = ${slot(`contentType${i}`)},
              file_name = ${slot(`fileName${i}`)}, byte_size = ${slot(`byteSize${i}`)}, sha256 = ${slot(`sha256${i}`)},
              generated_at = ${slot('now')}, updated_at = ${slot('now')}
            where id = ${slot(`id${i}`)}
          )`,
      );
      query = namedQuery(
        sql`with ${sql.join(updates)}
            update results set updated_at = ${slot('now')} where id = ${slot('resultId')}`.compile(this.db),
      );
      this.markAvailablePg.set(count, query);
    }
    return query;
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
    await this.runner.run(trx, this.q.touch, { id: resultId, now: now.toISOString() });
  }

  /** What a download link points at: the signature already proved the right to it. */
  async downloadable(
    db: Db,
    artifactId: string,
  ): Promise<
    | { contentType: string; fileName: string; byteSize: number; sha256: string; tenantActive: boolean }
    | undefined
  > {
    const row = await db
      .selectFrom('artifacts')
      .innerJoin('tenants', 'tenants.id', 'artifacts.tenant_id')
      .select([
        'artifacts.content_type',
        'artifacts.file_name',
        'artifacts.availability',
        'artifacts.byte_size',
        'artifacts.sha256',
        'tenants.active',
      ])
      .where('artifacts.id', '=', artifactId)
      .executeTakeFirst();
    if (row?.availability !== 'available' || !row.content_type || !row.file_name || !row.sha256)
      return undefined;
    return {
      contentType: row.content_type,
      fileName: row.file_name,
      byteSize: row.byte_size ?? 0,
      sha256: row.sha256,
      tenantActive: bool(row.active),
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
