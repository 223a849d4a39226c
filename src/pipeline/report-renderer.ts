import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ArtifactType } from '../domain/submission/outcomes.js';
import { renderAll } from './render-all.js';
import type { RenderedReport, RenderReply, RenderSource, RenderTask } from './render-types.js';

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

  constructor(threads: number) {
    this.pool = new Piscina({
      filename: workerFile(),
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
    const reply = await this.pool.run({ source, types }, { signal });
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
 * The compiled worker beside this file; from sources (tests), the build's copy. Given to piscina
 * as a file: URL so each thread loads it with import() only: piscina tries require() first for
 * a path, and Node 20's require() of an ES module can abort the whole process (a V8 fatal error,
 * seen once in CI) when a second task's require() meets the module graph while the first one's
 * import() is still instantiating it.
 */
function workerFile(): string {
  const sibling = new URL('./render-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(sibling))) return sibling.href;
  return new URL('../../dist/pipeline/render-worker.js', import.meta.url).href;
}
