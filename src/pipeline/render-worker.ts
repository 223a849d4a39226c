import { sha256Hex } from '../hash.js';
import { buildReport, renderArtifact } from '../reports/index.js';
import { textWidth } from '../reports/pdf-fonts.js';
import type { ArtifactType } from '../store/repositories/results.js';
import type { RenderedReport, RenderInput } from './report-renderer.js';

export interface RenderTask {
  input: RenderInput;
  types: ArtifactType[];
}

export type RenderReply = Array<[ArtifactType, Omit<RenderedReport, 'body'> & { body: Uint8Array }]>;

// The pool starts its threads with the service: load and parse the fonts now, not in the
// first submission's render.
textWidth('regular', 'warm-up', 10);
textWidth('bold', 'warm-up', 10);

/** Runs in a worker thread: one report model, then each requested renderer. */
export default async function render(task: RenderTask): Promise<RenderReply> {
  const report = buildReport(task.input);
  const out: RenderReply = [];
  for (const type of task.types) {
    const artifact = await renderArtifact(type, report);
    out.push([type, { ...artifact, sha256: sha256Hex(artifact.body) }]);
  }
  return out;
}
