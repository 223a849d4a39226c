import { Piscina } from 'piscina';
import type { ArtifactType } from '../domain/submission/outcomes.js';
import { renderAll } from './render-all.js';
import type {
  RenderedReport,
  RenderReply,
  RenderSource,
  RenderTask,
  RenderThreadData,
} from './render-types.js';

/** Renders the requested artifacts; the caller stores them with the rows that point at them. */
export interface ReportRenderer {
  render(
    source: RenderSource,
    types: ArtifactType[],
    signal: AbortSignal,
  ): Promise<Map<ArtifactType, RenderedReport>>;
  close?(): Promise<void>;
}

/** Renders on the event loop's thread (RENDER_THREADS=0). */
export class InlineReportRenderer implements ReportRenderer {
  async render(
    source: RenderSource,
    types: ArtifactType[],
    signal: AbortSignal,
  ): Promise<Map<ArtifactType, RenderedReport>> {
    return new Map(await renderAll(source, types, signal));
  }
}

/**
 * Renders on a pool of worker threads (piscina), so PDF layout uses the other cores and the
 * event loop stays free for requests and the queue.
 */
export class ThreadedReportRenderer implements ReportRenderer {
  private readonly pool: Piscina<RenderTask, RenderReply>;

  /** `nice`: what each thread sets its own priority to (`RENDER_NICE`); 0 leaves it. */
  constructor(threads: number, nice = 0) {
    this.pool = new Piscina({
      filename: workerFile(),
      workerData: { nice } satisfies RenderThreadData,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
    });
  }

  async render(
    source: RenderSource,
    types: ArtifactType[],
    signal: AbortSignal,
  ): Promise<Map<ArtifactType, RenderedReport>> {
    // The text alone crosses: cheaper to post and to rebuild than the parsed object (RenderSource).
    const { submission: _parsed, ...texts } = source;
    const reply = await this.pool.run({ source: texts, types }, { signal });
    return new Map(
      reply.map(([type, r]) => [
        type,
        { ...r, body: Buffer.from(r.body.buffer, r.body.byteOffset, r.body.byteLength) },
      ]),
    );
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

/**
 * The thread entry beside this module (`render-entry.cts`, built to `.cjs`). CommonJS because
 * piscina require()s the file first, and Node 20's require() of an ES module can abort the
 * process (see that file). From sources (tests), the tests' loader runs the `.cts` itself.
 */
function workerFile(): string {
  return new URL('./render-entry.cjs', import.meta.url).href;
}
