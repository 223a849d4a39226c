import { checkStoredSubmission } from '../../ingest/index.js';
import { type JobDefinition, PermanentJobError } from '../../queue/types.js';
import { nextJob, type PipelineDeps, RejectedSubmission, requireSubmissionId } from './common.js';
import type { SubmissionEnd } from './complete.js';
import { factsOf, LoadedSubmission } from './handover.js';

/** Why a stored submission is rejected, by the check it no longer passes. */
const REJECTIONS = {
  unreadable: 'The stored submission is not valid JSON.',
  invalid: 'The submission no longer matches the submission schema.',
  partner: 'The submission names a different partner than the key that sent it.',
  panel: 'The marker panel no longer passes the panel checks.',
} as const;

/**
 * `pipeline.ingest_validate`: the stored original body checked again, by the version of the
 * service that will score it, with the door's reader and checks at the instant the door checked
 * it; normalised again. Why this step stays: docs/pipeline.md. It is always a cold start (its job
 * is written by ingest), and it loads the submission for the whole chained run.
 */
export function validateStep(deps: PipelineDeps, end: SubmissionEnd): JobDefinition {
  const { store } = deps;
  const subs = store.pipeline;
  return {
    startStatus: 'validating',
    async run(job, ctx) {
      const id = requireSubmissionId(job);
      const stored = await subs.load(store.db, id);
      if (!stored) throw new PermanentJobError('The submission to check no longer exists.');
      const checked = checkStoredSubmission(stored.originalBody, {
        now: new Date(stored.receivedAt),
        namedPartnerId: stored.namedPartnerId,
      });
      if (!checked.ok) throw new RejectedSubmission(REJECTIONS[checked.refusal.reason]);
      const normalised = checked.normalisedBody;
      const loaded = new LoadedSubmission(factsOf(stored, normalised));
      return async (trx, completion) => {
        const now = ctx.clock();
        if (normalised !== stored.normalisedBody) await subs.setNormalised(trx, id, normalised, now);
        // Started here, the score step has already said `processing` in this transaction; a
        // `validated` written as well would never be seen.
        const next = nextJob(job, 'pipeline.score', deps.maxAttempts);
        const started = await completion.enqueue(next, loaded);
        if (!started) await subs.setStatus(trx, id, 'validated', now);
      };
    },
    onFailed: async (trx, job, _summary, error) => end.fail(trx, job, error),
    afterFailed: end.afterFailed,
    summarize: () => 'Checking the submission failed because of an internal error.',
  };
}
