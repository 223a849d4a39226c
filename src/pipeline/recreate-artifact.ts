import type { Store } from '../store/index.js';
import type { StoredSubmission } from '../store/repositories/pipeline.js';
import type { ArtifactType } from '../store/repositories/results.js';
import { renderAll } from './render-all.js';
import type { RenderSource } from './report-renderer.js';

/**
 * Renders an available artifact again from its stored result, for when its stored bytes are
 * missing or do not match the recorded hash (a damaged database page, a restore that left the
 * table out, an object store that lost the object). Rendering is deterministic, so the bytes
 * match what was first delivered; they are written back for the next download only if they
 * match the recorded hash.
 */
export async function recreateArtifact(store: Store, artifactId: string): Promise<Buffer | undefined> {
  const db = store.connection.db;
  const row = await db
    .selectFrom('artifacts')
    .select(['type', 'submission_id', 'availability', 'sha256'])
    .where('id', '=', artifactId)
    .executeTakeFirst();
  if (row?.availability !== 'available') return undefined;
  const submission = await store.pipeline.load(db, row.submission_id);
  const result = await store.results.forSubmission(db, row.submission_id);
  if (!submission || !result) return undefined;
  const rendered = (await renderAll(renderSource(submission, result), [row.type as ArtifactType]))[0]?.[1];
  if (!rendered || rendered.sha256 !== row.sha256) return undefined;
  await store.batcher.submit((trx) => store.artifacts.put(trx, artifactId, rendered.body));
  return rendered.body;
}

/** The stored texts a submission's reports are rendered from. */
export function renderSource(
  submission: StoredSubmission,
  result: { resultId: string; bundleJson: string },
): RenderSource {
  return {
    resultId: result.resultId,
    submissionId: submission.submissionId,
    receivedAt: submission.receivedAt,
    normalisedBody: submission.normalisedBody,
    bundle: result.bundleJson,
  };
}
