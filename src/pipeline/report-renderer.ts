import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { ModelResult } from '../domain/model/types.js';
import type { NormalisedSubmission } from '../domain/submission/index.js';
import { sha256Hex } from '../hash.js';
import { buildReport, renderArtifact } from '../reports/index.js';
import { type ArtifactStore, FileArtifactStore } from '../store/artifact-store.js';
import type { ArtifactType } from '../store/repositories/results.js';
import type { RenderReply, RenderTask } from './render-worker.js';

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

export interface RenderTarget {
  type: ArtifactType;
  artifactId: string;
}

/** An artifact whose bytes are durable in the artifact store. */
export interface StoredArtifact {
  byteSize: number;
  contentType: string;
  fileExtension: string;
  /** Hex SHA-256 of the bytes, computed where they were rendered. */
  sha256: string;
}

/** Renders the requested artifacts and puts their bytes in the artifact store. */
export interface ReportRenderer {
  renderAndStore(
    input: RenderInput,
    targets: RenderTarget[],
    signal: AbortSignal,
  ): Promise<Map<ArtifactType, StoredArtifact>>;
  close?(): Promise<void>;
}

/** Renders on the event loop's thread (RENDER_THREADS=0). */
export class InlineReportRenderer implements ReportRenderer {
  constructor(private readonly store: ArtifactStore) {}

  async renderAndStore(
    input: RenderInput,
    targets: RenderTarget[],
    signal: AbortSignal,
  ): Promise<Map<ArtifactType, StoredArtifact>> {
    const report = buildReport(input);
    const out = new Map<ArtifactType, StoredArtifact>();
    for (const target of targets) {
      if (signal.aborted) throw new Error('rendering aborted');
      const artifact = await renderArtifact(target.type, report);
      await this.store.put(target.artifactId, artifact.body);
      out.set(target.type, {
        byteSize: artifact.body.length,
        contentType: artifact.contentType,
        fileExtension: artifact.fileExtension,
        sha256: sha256Hex(artifact.body),
      });
    }
    return out;
  }
}

/**
 * Renders on a pool of worker threads (piscina), so PDF layout uses the other cores and the
 * event loop stays free for requests and the queue. With a file store the render thread
 * writes the files too, and only their description crosses back.
 */
export class ThreadedReportRenderer implements ReportRenderer {
  private readonly pool: Piscina<RenderTask, RenderReply>;

  constructor(
    threads: number,
    private readonly store: ArtifactStore,
  ) {
    this.pool = new Piscina({
      filename: workerFile(),
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
    });
  }

  async renderAndStore(
    input: RenderInput,
    targets: RenderTarget[],
    signal: AbortSignal,
  ): Promise<Map<ArtifactType, StoredArtifact>> {
    const filesDir = this.store instanceof FileArtifactStore ? this.store.dataDir : undefined;
    const reply = await this.pool.run({ input, targets, filesDir }, { signal });
    const out = new Map<ArtifactType, StoredArtifact>();
    for (const [type, { body, ...described }] of reply) {
      if (body) {
        const target = targets.find((t) => t.type === type)!;
        await this.store.put(target.artifactId, Buffer.from(body));
      }
      out.set(type, described);
    }
    return out;
  }

  close(): Promise<void> {
    return this.pool.destroy();
  }
}

/** The compiled worker beside this file; from sources (tests), the build's copy. */
function workerFile(): string {
  const sibling = fileURLToPath(new URL('./render-worker.js', import.meta.url));
  if (existsSync(sibling)) return sibling;
  return fileURLToPath(new URL('../../dist/pipeline/render-worker.js', import.meta.url));
}
