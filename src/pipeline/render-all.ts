import { sha256Hex } from '../hash.js';
import { buildReport, renderArtifact } from '../reports/index.js';
import type { ArtifactType } from '../store/repositories/results.js';
import type { RenderedReport, RenderInput } from './report-renderer.js';

/** One report model, then each requested renderer, with the SHA-256 of every result. */
export async function renderAll(
  input: RenderInput,
  types: readonly ArtifactType[],
  signal?: AbortSignal,
): Promise<Array<[ArtifactType, RenderedReport]>> {
  const report = buildReport(input);
  const out: Array<[ArtifactType, RenderedReport]> = [];
  for (const type of types) {
    if (signal?.aborted) throw new Error('rendering aborted');
    const artifact = await renderArtifact(type, report);
    out.push([type, { ...artifact, sha256: sha256Hex(artifact.body) }]);
  }
  return out;
}
