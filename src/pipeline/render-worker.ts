import { textWidth } from '../reports/pdf-fonts.js';
import type { ArtifactType } from '../store/repositories/results.js';
import { renderAll } from './render-all.js';
import type { RenderedReport, RenderSource } from './report-renderer.js';

export interface RenderTask {
  source: RenderSource;
  types: ArtifactType[];
}

export type RenderReply = Array<[ArtifactType, Omit<RenderedReport, 'body'> & { body: Uint8Array }]>;

// The pool starts its threads with the service: load and parse the fonts now, not in the
// first submission's render.
textWidth('regular', 'warm-up', 10);
textWidth('bold', 'warm-up', 10);

/** Runs in a worker thread. */
export default function render(task: RenderTask): Promise<RenderReply> {
  return renderAll(task.source, task.types);
}
