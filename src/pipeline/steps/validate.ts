import { checkStoredSubmission, checksIdentity } from '../../ingest/index.js';
import { type JobDefinition, PermanentJobError } from '../../queue/types.js';
import type { SystemStore } from '../../store/index.js';
import type { StoredSubmission } from '../../store/tenant-access.js';
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

/** The door ran the checks this process runs, and they passed: running them again says the same. */
function passedTheseChecks(stored: StoredSubmission): boolean {
  return stored.doorCheck?.outcome === 'passed' && stored.doorCheck.checks === checksIdentity();
}

/**
 * The stored original body checked again, with the door's reader and checks at the instant the
 * door checked it, and normalised again: its normalised text, or the submission is rejected.
 */
async function checkAgain(store: SystemStore, stored: StoredSubmission): Promise<string> {
  const original = await store.pipeline.originalBody(store.db, stored.submissionId);
  if (original === undefined) throw new PermanentJobError('The submission to check no longer exists.');
  const checked = checkStoredSubmission(original, {
    now: new Date(stored.receivedAt),
    namedPartnerId: stored.namedPartnerId,
  });
  if (!checked.ok) throw new RejectedSubmission(REJECTIONS[checked.refusal.reason]);
  return checked.normalisedBody;
}

/**
 * `pipeline.ingest_validate`: makes sure the submission passes the checks of the version of the
 * service that will score it. When the door recorded that it passed these very checks, that
 * stands; otherwise (a row from before the door recorded it, or checks changed since) the stored
 * original body is checked again and normalised again. Why this step stays, and how "these very
 * checks" is decided: docs/pipeline.md. It is always a cold start (its job is written by ingest),
 * and it loads and parses the submission for the whole chained run.
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
      const normalised = passedTheseChecks(stored) ? stored.normalisedBody : await checkAgain(store, stored);
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
