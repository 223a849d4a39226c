import type { NormalisedSubmission } from '../domain/submission/index.js';
import type { ArtifactType } from '../domain/submission/outcomes.js';

/** What crosses between the render step, its threads and the renderers. */

/**
 * The stored texts a report is built from. They cross to the render thread as strings and are
 * parsed there: the event loop neither parses them nor has their objects cloned (structured
 * clone of the submission and result objects cost more on the event loop than the rest of the
 * render step; for the submission alone, posting the object took 20 to 30 µs of the event
 * loop's time and its copy 35 to 60 µs to rebuild on the thread, posting the text 3 to 9 µs and
 * parsing it there 25 µs: docs/pipeline.md).
 */
export interface RenderSource {
  resultId: string;
  submissionId: string;
  /** The time of receipt, printed as the report's time so that a re-render gives the same bytes. */
  receivedAt: string;
  /** The normalised submission, as stored (JSON). */
  normalisedBody: string;
  /**
   * `normalisedBody` parsed, when the caller has it (a chained run): rendering on the event
   * loop's thread uses it instead of parsing again; the threads are sent the text alone.
   */
  submission?: NormalisedSubmission;
  /** The model result bundle, as stored (JSON). */
  bundle: string;
}

export interface RenderedReport {
  body: Buffer;
  contentType: string;
  fileExtension: string;
  /** Hex SHA-256 of the bytes, computed where they were rendered. */
  sha256: string;
  /** When rendering started (epoch ms) and how long it took, measured on the thread that rendered. */
  timing: { startedAtMs: number; ms: number };
}

/** One render thread's task: the stored texts and the artifact types to render. */
export interface RenderTask {
  source: RenderSource;
  types: ArtifactType[];
}

/** What a render thread sends back: the bytes as a plain array, the rest as is. */
export type RenderReply = Array<[ArtifactType, Omit<RenderedReport, 'body'> & { body: Uint8Array }]>;

/** What each render thread is started with. */
export interface RenderThreadData {
  /** The nice value the thread gives itself (`RENDER_NICE`); 0 leaves the process's. */
  nice: number;
}
