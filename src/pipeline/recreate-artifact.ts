import type { ArtifactType } from '../domain/submission/outcomes.js';
import { ObjectStoreUnavailableError } from '../store/artifact-store.js';
import type { StoredSubmission, TenantAccess } from '../store/tenant-access.js';
import { emit } from '../telemetry/events.js';
import { renderAll } from './render-all.js';
import type { RenderSource } from './render-types.js';

/**
 * Renders an available artifact again from its stored result, for when its stored bytes are
 * missing or do not match the recorded hash (a damaged database page, a restore that left the
 * table out, an object store that lost the object). Rendering is deterministic, so the bytes
 * match what was first delivered; they are written back for the next download only if they
 * match the recorded hash. Works through the account's scoped access, like the download itself.
 */
export async function recreateArtifact(
  artifacts: TenantAccess['artifacts'],
  artifactId: string,
): Promise<Buffer | undefined> {
  const source = await artifacts.recreation(artifactId);
  if (!source) return undefined;
  const rendered = (
    await renderAll(renderSource(source.submission, source.result), [source.type as ArtifactType])
  )[0]?.[1];
  if (!rendered || rendered.sha256 !== source.sha256) {
    emit('artifact.object', { operation: 'rerender', outcome: 'mismatch', count: 1 });
    return undefined;
  }
  emit('artifact.object', { operation: 'rerender', outcome: 'ok', count: 1 });
  try {
    await artifacts.restore(artifactId, rendered.body);
  } catch (error) {
    // The bytes are checked and served all the same; the next download renders them again.
    if (!(error instanceof ObjectStoreUnavailableError)) throw error;
  }
  return rendered.body;
}

/** The stored texts a submission's reports are rendered from, with the parsed submission when at hand. */
export function renderSource(
  submission: Pick<StoredSubmission, 'submissionId' | 'receivedAt' | 'normalisedBody'> &
    Pick<RenderSource, 'submission'>,
  result: { resultId: string; bundleJson: string },
): RenderSource {
  return {
    resultId: result.resultId,
    submissionId: submission.submissionId,
    receivedAt: submission.receivedAt,
    normalisedBody: submission.normalisedBody,
    bundle: result.bundleJson,
    ...(submission.submission && { submission: submission.submission }),
  };
}
