import { SIMULATIONS, simulationOf } from '../../domain/mode.js';
import { scoreSubmission } from '../../domain/model/index.js';
import type { ModelResult } from '../../domain/model/types.js';
import {
  ARTIFACT_TYPES,
  type ArtifactType,
  type NormalisedSubmission,
} from '../../domain/submission/index.js';
import { ExpectedJobError, type JobDefinition, PermanentJobError } from '../../queue/types.js';
import { nextJob, type PipelineDeps, requireSubmissionId } from './common.js';
import type { SubmissionEnd } from './complete.js';
import { LoadedSubmission, submissionFor } from './handover.js';

/** `simulate:processing_failure` (test mode): every scoring attempt fails, so it is retried. */
class SimulatedFailure extends ExpectedJobError {
  constructor() {
    super(
      `Processing failed on purpose: test submissions whose partnerSubmissionId starts with "${SIMULATIONS.processingFailure}" always fail.`,
      'simulated_failure',
    );
  }
}

function requestedArtifacts(sub: NormalisedSubmission): ArtifactType[] {
  const outputs = new Set<string>(sub.options.requestedOutputs);
  return ARTIFACT_TYPES.filter((t) => outputs.has(t));
}

/**
 * `pipeline.score`: the model on the normalised submission, evaluated at the time of receipt so
 * a re-run gives the same numbers; the result and its pending artifacts, written once.
 */
export function scoreStep(deps: PipelineDeps, end: SubmissionEnd): JobDefinition {
  const { store } = deps;
  return {
    startStatus: 'processing',
    async run(job, ctx) {
      const id = requireSubmissionId(job);
      const facts = await submissionFor(id, ctx, store);
      if (!facts) throw new PermanentJobError('The submission to score no longer exists.');
      if (simulationOf(facts.mode, facts.partnerSubmissionId) === 'processingFailure') {
        throw new SimulatedFailure();
      }
      const sub = facts.submission;
      const bundle: ModelResult = scoreSubmission(sub, { now: new Date(facts.receivedAt) });
      const artifacts = requestedArtifacts(sub);
      return async (trx, completion) => {
        const now = ctx.clock();
        await store.results.createOnce(
          trx,
          { tenantId: job.tenantId, submissionId: id, bundle, artifactTypes: artifacts },
          now,
        );
        if (artifacts.length > 0) {
          const next = nextJob(job, 'pipeline.render_reports', deps.maxAttempts);
          await completion.enqueue(next, new LoadedSubmission(facts));
        } else {
          await end.complete(trx, job, now, completion);
        }
      };
    },
    onFailed: async (trx, job, _summary, error) => end.fail(trx, job, error),
    afterFailed: end.afterFailed,
    summarize: (error) =>
      error instanceof SimulatedFailure ? error.message : 'Scoring failed because of an internal error.',
  };
}
