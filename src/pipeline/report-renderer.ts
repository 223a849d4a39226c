import type { ModelResult } from '../domain/model/types.js';
import type { NormalisedSubmission } from '../domain/submission/index.js';
import { buildReport, renderArtifact } from '../reports/index.js';
import type { ArtifactType } from '../store/repositories/results.js';

export interface RenderInput {
  resultId: string;
  submissionId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  generatedAt: string;
  submission: NormalisedSubmission;
  result: ModelResult;
}

export interface RenderedArtifact {
  body: Buffer;
  contentType: string;
  fileExtension: string;
}

export interface ReportRenderer {
  render(
    input: RenderInput,
    types: ArtifactType[],
    signal: AbortSignal,
  ): Promise<Map<ArtifactType, RenderedArtifact>>;
}

/** Renders in this thread: one report model, then each requested renderer. */
export class InlineReportRenderer implements ReportRenderer {
  async render(
    input: RenderInput,
    types: ArtifactType[],
    signal: AbortSignal,
  ): Promise<Map<ArtifactType, RenderedArtifact>> {
    const report = buildReport(input);
    const out = new Map<ArtifactType, RenderedArtifact>();
    for (const type of types) {
      if (signal.aborted) throw new Error('rendering aborted');
      out.set(type, await renderArtifact(type, report));
    }
    return out;
  }
}
