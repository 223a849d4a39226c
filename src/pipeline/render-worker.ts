import { workerData } from 'piscina';
import { preparePdf } from '../reports/pdf/index.js';
import { moveReply } from './moved-reply.js';
import { renderAll } from './render-all.js';
import { lowerThreadPriority } from './render-priority.js';
import type { RenderReply, RenderTask, RenderThreadData } from './render-types.js';

// Before anything heavy: rendering is background work, and on a shared machine the event loop
// (partners' requests, the queue) must win the cores when both want them (issue 32).
lowerThreadPriority((workerData as Partial<RenderThreadData> | undefined)?.nice ?? 0);

// The pool starts its threads with the service: load and parse the fonts and build the
// embedded font objects every pdf shares now, not in the first submission's render.
preparePdf();

/** Runs in a worker thread. */
export default async function render(task: RenderTask): Promise<RenderReply> {
  return moveReply(await renderAll(task.source, task.types));
}
