import type { Kysely } from 'kysely';
import type { ArtifactStore } from '../artifact-store.js';
import { bool } from '../codec.js';
import type { Database } from '../database.js';
import type { PipelineRepository, StoredSubmission } from './pipeline.js';
import type { ResultsRepository } from './results.js';

/** An available artifact of the account, with what a download sends. */
export interface DownloadableArtifact {
  artifactId: string;
  contentType: string;
  fileName: string;
  byteSize: number;
  sha256: string;
  /** False once the account was deactivated: its links die with it. */
  tenantActive: boolean;
  /** The stored bytes (undefined when they are missing). */
  read(): Promise<Buffer | undefined>;
  /**
   * A presigned object URL valid for `expiresSeconds` answering with this type and disposition,
   * when the object is there as recorded; undefined otherwise (or in the database store).
   */
  directLink(contentDisposition: string, expiresSeconds: number): Promise<string | undefined>;
}

/** What an artifact is rendered again from when its stored bytes are lost or altered. */
export interface ArtifactRecreation {
  type: string;
  sha256: string;
  submission: StoredSubmission;
  result: { resultId: string; bundleJson: string };
}

/**
 * One account's artifacts, for downloads: every query carries the account's predicate, and the
 * bytes are read or written back only for an artifact found under it.
 */
export class TenantArtifacts {
  constructor(
    private readonly db: Kysely<Database>,
    readonly tenantId: string,
    private readonly deps: {
      bytes: ArtifactStore;
      pipeline: PipelineRepository;
      results: ResultsRepository;
    },
  ) {}

  private row(artifactId: string) {
    return this.db
      .selectFrom('artifacts')
      .innerJoin('tenants', 'tenants.id', 'artifacts.tenant_id')
      .select([
        'artifacts.type',
        'artifacts.submission_id',
        'artifacts.content_type',
        'artifacts.file_name',
        'artifacts.availability',
        'artifacts.byte_size',
        'artifacts.sha256',
        'tenants.active',
      ])
      .where('artifacts.tenant_id', '=', this.tenantId)
      .where('artifacts.id', '=', artifactId)
      .executeTakeFirst();
  }

  async downloadable(artifactId: string): Promise<DownloadableArtifact | undefined> {
    const row = await this.row(artifactId);
    if (row?.availability !== 'available' || !row.content_type || !row.file_name || !row.sha256)
      return undefined;
    return {
      artifactId,
      contentType: row.content_type,
      fileName: row.file_name,
      byteSize: row.byte_size ?? 0,
      sha256: row.sha256,
      tenantActive: bool(row.active),
      read: () => this.deps.bytes.get(artifactId),
      directLink: (contentDisposition, expiresSeconds) =>
        this.deps.bytes.directLink(artifactId, {
          byteSize: row.byte_size ?? 0,
          sha256: row.sha256!,
          contentType: row.content_type!,
          contentDisposition,
          expiresSeconds,
        }),
    };
  }

  async recreation(artifactId: string): Promise<ArtifactRecreation | undefined> {
    const row = await this.row(artifactId);
    if (row?.availability !== 'available' || !row.sha256) return undefined;
    const submission = await this.deps.pipeline.load(this.db, row.submission_id);
    const result = await this.deps.results.forSubmission(this.db, row.submission_id);
    if (!submission || !result) return undefined;
    return { type: row.type, sha256: row.sha256, submission, result };
  }

  /** Writes an artifact's bytes back (recreated, and checked against its recorded hash). */
  async restore(artifactId: string, body: Buffer): Promise<void> {
    if (!(await this.row(artifactId))) return;
    await this.deps.bytes.restore(artifactId, body);
  }
}
