import type { ArtifactType } from '../../domain/submission/index.js';
import { DependencyUnavailableError, type JobDefinition, PermanentJobError } from '../../queue/types.js';
import {
  type ArtifactBytes,
  type ArtifactStore,
  ObjectStoreUnavailableError,
} from '../../store/artifact-store.js';
import { emit } from '../../telemetry/events.js';
import { tracing } from '../../telemetry/tracing.js';
import { renderSource } from '../recreate-artifact.js';
import type { RenderedReport } from '../render-types.js';
import { type PipelineDeps, requireSubmissionId } from './common.js';
import type { SubmissionEnd } from './complete.js';
import { submissionFor } from './handover.js';

/**
 * Each report's render time, and a span for it in the render job's trace: recorded after the
 * fact with the times the rendering thread measured, since spans do not cross threads.
 */
function reportRenders(rendered: Map<ArtifactType, RenderedReport>): void {
  const t = tracing();
  for (const [type, r] of rendered) {
    emit('report.rendered', { type, seconds: r.timing.ms / 1000 });
    if (!t.enabled) continue;
    t.start(`render ${type}`, {
      startTimeMs: r.timing.startedAtMs,
      attributes: { 'healthspan.report.type': type },
    }).end(r.timing.startedAtMs + r.timing.ms);
  }
}

/**
 * With an object store, the bytes are written before the commit that marks them available: a
 * crash between the two leaves objects no row points to (the cleaner deletes them) and the
 * artifacts pending, so the step runs again. While the store is down the step is retried
 * without limit: the submission waits for its reports rather than completing without them.
 */
async function writeObjects(artifacts: ArtifactStore, written: readonly ArtifactBytes[]): Promise<void> {
  try {
    await artifacts.write(written);
  } catch (error) {
    if (!(error instanceof ObjectStoreUnavailableError)) throw error;
    throw new DependencyUnavailableError(error.message, 'ObjectStoreUnavailable');
  }
}

/**
 * `pipeline.render_reports`: the result's pending reports, rendered outside any transaction;
 * their bytes and the rows that say "available" are then written in one commit (with an object
 * store, the bytes are written to it first and the commit writes the rows). The result is
 * read from the store even when chained: a re-run of the score step may find some of its
 * artifacts available already.
 */
export function renderStep(deps: PipelineDeps, end: SubmissionEnd): JobDefinition {
  const { store, clock } = deps;
  const results = store.results;
  return {
    async run(job, ctx) {
      const id = requireSubmissionId(job);
      const submission = await submissionFor(id, ctx, store);
      const result = await results.forSubmission(store.db, id);
      if (!submission || !result)
        throw new PermanentJobError('The result to render reports for no longer exists.');
      const pending = result.artifacts.filter((a) => a.availability === 'pending');
      const safeName = submission.partnerSubmissionId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
      const rendered = await deps.renderer.render(
        renderSource(submission, result),
        pending.map((a) => a.type as ArtifactType),
        ctx.signal,
      );
      reportRenders(rendered);
      const written = pending.flatMap((a) => {
        const r = rendered.get(a.type as ArtifactType);
        return r
          ? [
              {
                artifactId: a.artifactId,
                body: r.body,
                byteSize: r.body.length,
                contentType: r.contentType,
                fileName: `wellbeing-report-${safeName}.${r.fileExtension}`,
                sha256: r.sha256,
              },
            ]
          : [];
      });
      await writeObjects(store.artifacts, written);
      return async (trx, completion) => {
        const now = ctx.clock();
        await results.storeAvailable(trx, result.resultId, written, now, store.artifacts.inDatabase);
        await end.complete(trx, job, now, completion);
      };
    },
    // Scores exist even when a renderer keeps failing: the submission completes, and the
    // artifacts that could not be made say so.
    async onFailed(trx, job) {
      if (!job.submissionId) return;
      const now = clock();
      const result = await results.forSubmission(trx, job.submissionId);
      if (result) {
        await results.markPendingUnavailable(trx, result.resultId, now);
        await results.touch(trx, result.resultId, now);
      }
      await end.complete(trx, job, now, {
        enqueue: async (next) => {
          await store.jobs.enqueue(trx, next, now);
        },
      });
    },
    afterFailed: (job) => end.finished(job, 'completed', clock()),
    summarize: (error) =>
      error instanceof DependencyUnavailableError
        ? 'The report storage is unavailable; the reports will be stored once it answers again.'
        : 'Preparing the reports failed because of an internal error.',
  };
}
