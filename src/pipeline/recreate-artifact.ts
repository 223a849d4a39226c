import type { ModelResult } from '../domain/model/types.js';
import type { NormalisedSubmission } from '../domain/submission/index.js';
import { buildReport, renderArtifact } from '../reports/index.js';
import type { Store } from '../store/index.js';
import type { StoredSubmission } from '../store/repositories/pipeline.js';
import type { ArtifactType } from '../store/repositories/results.js';
import type { RenderInput } from './report-renderer.js';

/**
 * Renders an available artifact again from its stored result, for when its file is missing or
 * does not match the recorded hash (lost in a power failure, or never copied to this machine).
 * Rendering is deterministic, so the bytes match what was first delivered; they are written
 * back to the artifact store for the next download.
 */
export async function recreateArtifact(store: Store, artifactId: string): Promise<Buffer | undefined> {
  const db = store.connection.db;
  const row = await db
    .selectFrom('artifacts')
    .select(['type', 'submission_id', 'availability'])
    .where('id', '=', artifactId)
    .executeTakeFirst();
  if (row?.availability !== 'available') return undefined;
  const submission = await store.pipeline.load(db, row.submission_id);
  const result = await store.results.forSubmission(db, row.submission_id);
  if (!submission || !result) return undefined;
  const report = buildReport(reportInput(submission, result));
  const { body } = await renderArtifact(row.type as ArtifactType, report);
  await store.artifacts.put(artifactId, body);
  return body;
}

/**
 * What a report is built from. Reports carry the time of receipt rather than the clock, so a
 * re-render produces the same bytes.
 */
export function reportInput(
  submission: StoredSubmission,
  result: { resultId: string; bundle: ModelResult },
): RenderInput {
  const sub = JSON.parse(submission.normalisedBody) as NormalisedSubmission;
  return {
    resultId: result.resultId,
    submissionId: submission.submissionId,
    partnerSubmissionId: sub.partnerSubmissionId,
    partnerSubjectId: sub.partnerSubjectId,
    generatedAt: submission.receivedAt,
    submission: sub,
    result: result.bundle,
  };
}
