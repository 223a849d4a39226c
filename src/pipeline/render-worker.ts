import { sha256Hex } from '../hash.js';
import { buildReport, renderArtifact } from '../reports/index.js';
import { textWidth } from '../reports/pdf-fonts.js';
import { FileArtifactStore } from '../store/artifact-store.js';
import type { ArtifactType } from '../store/repositories/results.js';
import type { RenderedArtifact, RenderInput, RenderTarget, StoredArtifact } from './report-renderer.js';

export interface RenderTask {
  input: RenderInput;
  targets: RenderTarget[];
  /** When set, this thread writes the files itself and sends back only their description. */
  filesDir?: string;
}

export type RenderReply = Array<[ArtifactType, StoredArtifact & { body?: Uint8Array }]>;

const stores = new Map<string, FileArtifactStore>();

// The pool starts its threads with the service: load and parse the fonts now, not in the
// first submission's render.
textWidth('regular', 'warm-up', 10);
textWidth('bold', 'warm-up', 10);

/** Runs in a worker thread: one report model, then each requested renderer. */
export default async function render(task: RenderTask): Promise<RenderReply> {
  const report = buildReport(task.input);
  const store =
    task.filesDir === undefined
      ? undefined
      : (stores.get(task.filesDir) ?? new FileArtifactStore(task.filesDir));
  if (store && task.filesDir !== undefined) stores.set(task.filesDir, store);
  const out: RenderReply = [];
  for (const target of task.targets) {
    const artifact: RenderedArtifact = await renderArtifact(target.type, report);
    const described = {
      byteSize: artifact.body.length,
      contentType: artifact.contentType,
      fileExtension: artifact.fileExtension,
      sha256: sha256Hex(artifact.body),
    };
    if (store) {
      store.putSync(target.artifactId, artifact.body);
      out.push([target.type, described]);
    } else {
      out.push([target.type, { ...described, body: artifact.body }]);
    }
  }
  return out;
}
