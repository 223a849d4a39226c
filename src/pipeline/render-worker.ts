import { preparePdf } from '../reports/pdf/index.js';
import { moveReply } from './moved-reply.js';
import { renderAll } from './render-all.js';
import type { RenderReply, RenderTask } from './render-types.js';

// The pool starts its threads with the service: load and parse the fonts and build the
// embedded font objects every pdf shares now, not in the first submission's render.
preparePdf();

/** Runs in a worker thread. */
export default async function render(task: RenderTask): Promise<RenderReply> {
  return moveReply(await renderAll(task.source, task.types));
}
