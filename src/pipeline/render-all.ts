import type { ModelResult } from '../domain/model/types.js';
import type { NormalisedSubmission } from '../domain/submission/index.js';
import type { ArtifactType } from '../domain/submission/outcomes.js';
import { sha256Hex } from '../hash.js';
import { buildReport, type ReportInput, renderArtifact } from '../reports/index.js';
import type { RenderedReport, RenderSource } from './render-types.js';

/**
 * What a report is built from. Reports carry the time of receipt rather than the clock, so a
 * re-render produces the same bytes.
 */
export function reportInput(source: RenderSource): ReportInput {
  const sub = source.submission ?? (JSON.parse(source.normalisedBody) as NormalisedSubmission);
  return {
    resultId: source.resultId,
    submissionId: source.submissionId,
    partnerSubmissionId: sub.partnerSubmissionId,
    partnerSubjectId: sub.partnerSubjectId,
    generatedAt: source.receivedAt,
    submission: sub,
    result: JSON.parse(source.bundle) as ModelResult,
  };
}

/** One report model, then each requested renderer, with the SHA-256 of every result. */
export async function renderAll(
  source: RenderSource,
  types: readonly ArtifactType[],
  signal?: AbortSignal,
): Promise<Array<[ArtifactType, RenderedReport]>> {
  const report = buildReport(reportInput(source));
  const out: Array<[ArtifactType, RenderedReport]> = [];
  for (const type of types) {
    if (signal?.aborted) throw new Error('rendering aborted');
    const started = performance.now();
    const artifact = await renderArtifact(type, report);
    const timing = { startedAtMs: performance.timeOrigin + started, ms: performance.now() - started };
    out.push([type, { ...artifact, sha256: sha256Hex(artifact.body), timing }]);
  }
  return out;
}
