import type { NormalisedSubmission } from '../../domain/submission/index.js';
import type { HandlerContext } from '../../queue/types.js';
import type { SystemStore } from '../../store/index.js';
import type { StoredSubmission } from '../../store/tenant-access.js';

/** What the steps after the check read of a submission. */
export interface SubmissionFacts
  extends Pick<
    StoredSubmission,
    'submissionId' | 'mode' | 'partnerSubmissionId' | 'receivedAt' | 'normalisedBody'
  > {
  /**
   * `normalisedBody` parsed, once per run: the steps share it and only read it (the model and
   * the report model are pure; test/pipeline-unit/shared-submission.test.ts freezes it).
   */
  submission: NormalisedSubmission;
}

/**
 * A checked submission as a chained run carries it from step to step in memory, so a run loads
 * it from the store and parses it once: the check step loads it and hands this to the score step
 * it chains, which hands it on to the render step (`CompletionContext.enqueue`). It holds what
 * the commit that chained the step wrote (the normalised text included), and the worker gives it
 * to that attempt alone; any other start (a retry, a rescue, another process) loads from the
 * store and parses the stored text.
 *
 * The object handed over is the stored text parsed, never the object the check made: the two
 * differ where JSON cannot say what an object holds (`-0`, a key whose value is undefined), and
 * a result must not depend on whether its step started chained or cold.
 */
export class LoadedSubmission {
  constructor(readonly facts: SubmissionFacts) {}
}

/**
 * The submission a step works on: what the step that chained it handed over, when that is one
 * of ours for this job's submission, or else (a cold start) read from the store and parsed.
 */
export async function submissionFor(
  submissionId: string,
  ctx: HandlerContext,
  store: SystemStore,
): Promise<SubmissionFacts | undefined> {
  const given = ctx.handOver;
  if (given instanceof LoadedSubmission && given.facts.submissionId === submissionId) return given.facts;
  const stored = await store.pipeline.load(store.db, submissionId);
  return stored && factsOf(stored, stored.normalisedBody);
}

/** The facts of a stored submission and its normalised text, parsed: the run's one parse. */
export function factsOf(stored: StoredSubmission, normalisedBody: string): SubmissionFacts {
  return {
    submissionId: stored.submissionId,
    mode: stored.mode,
    partnerSubmissionId: stored.partnerSubmissionId,
    receivedAt: stored.receivedAt,
    normalisedBody,
    submission: JSON.parse(normalisedBody) as NormalisedSubmission,
  };
}
