import type { Clock } from '../clock.js';
import type { JobKinds } from '../queue/kinds.js';
import { type JobDefinition, PermanentJobError } from '../queue/types.js';
import type { SystemStore } from '../store/index.js';
import { ERASURE_JOB_TYPE } from '../store/repositories/erasures.js';

export interface ErasureJobDeps {
  store: Pick<SystemStore, 'erasures' | 'audit' | 'flushDeletes'>;
  clock: Clock;
}

/**
 * Erases one submission of an erasure request (docs/data-lifecycle.md). All of it happens in the
 * transaction that completes the job: the submission and everything derived from it go, the
 * erasure counts it, and the last job of an erasure completes it (audited as `subject.erased`).
 * Once that has committed, the deleted rows are made unreadable in the database's files.
 */
export function erasureJob(deps: ErasureJobDeps): JobDefinition {
  const { store } = deps;
  return {
    async run(job, ctx) {
      const erasureId = job.payload?.erasureId;
      if (typeof erasureId !== 'string' || !job.submissionId) {
        throw new PermanentJobError('This erasure step names no erasure or submission.');
      }
      const submissionId = job.submissionId;
      // The ledger entry a first attempt appended, which a second one settles.
      const ledgerMemo = {};
      // Commit unit (it may run twice): deletes and counts through `trx`, so a rolled-back
      // attempt counted nothing; the flush is asked for again by the attempt that commits.
      return async (trx, completion) => {
        const now = ctx.clock();
        const counts = await store.erasures.eraseSubmission(trx, submissionId, job.id);
        const { completedTenantId } = await store.erasures.progress(trx, erasureId, counts, now);
        if (completedTenantId !== undefined) {
          await store.audit.record(
            trx,
            completedTenantId,
            { action: 'subject.erased', resourceType: 'erasure', resourceId: erasureId },
            {
              actor: { type: 'system' },
              requestId: job.requestId ?? job.id,
              correlationId: job.correlationId,
            },
            now,
          );
          await store.erasures.ledgerCompleted(trx, completedTenantId, erasureId, now, ledgerMemo);
          completion.afterCommit(() => store.flushDeletes());
        }
      };
    },
    summarize: () => 'Erasing the submission failed because of an internal error; it will be retried.',
  };
}

export function registerErasureJobs(kinds: JobKinds, deps: ErasureJobDeps): JobKinds {
  return kinds.register(ERASURE_JOB_TYPE, erasureJob(deps));
}
