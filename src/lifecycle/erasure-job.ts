import type { Clock } from '../clock.js';
import { faultPoint } from '../fault-points.js';
import type { JobKinds } from '../queue/kinds.js';
import { DependencyUnavailableError, type JobDefinition, PermanentJobError } from '../queue/types.js';
import { ObjectStoreUnavailableError } from '../store/artifact-store.js';
import type { SystemStore } from '../store/index.js';
import { LedgerUnavailableError } from '../store/ledger/index.js';
import { ERASURE_JOB_TYPE } from '../store/repositories/erasures.js';

export interface ErasureJobDeps {
  store: Pick<SystemStore, 'erasures' | 'audit' | 'flushDeletes' | 'artifacts' | 'db'>;
  clock: Clock;
}

/**
 * An object store's copies of the submission's reports, deleted before the rows that name them:
 * while the store is down the erasure is retried (never failed for it), and it completes only
 * once they are gone.
 */
async function deleteObjects(store: ErasureJobDeps['store'], submissionId: string): Promise<string[]> {
  if (store.artifacts.inDatabase) return [];
  const ids = await store.erasures.artifactIdsOf(store.db, submissionId);
  try {
    await store.artifacts.delete(ids);
  } catch (error) {
    if (!(error instanceof ObjectStoreUnavailableError)) throw error;
    throw new DependencyUnavailableError(error.message, 'ObjectStoreUnavailable');
  }
  return ids;
}

/**
 * The ledger's entry, or, while the ledger cannot take it (a full or read-only file system, the
 * file gone), a retry that never runs out: the erasure waits for the ledger, and its data stays
 * whole until both are written in one commit.
 */
async function ledgerOrWait(append: () => Promise<void>): Promise<void> {
  try {
    await append();
  } catch (error) {
    if (!(error instanceof LedgerUnavailableError)) throw error;
    throw new DependencyUnavailableError(error.message, 'LedgerUnavailable');
  }
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
      faultPoint('erasure.running');
      const artifactIds = await deleteObjects(store, submissionId);
      // The ledger entry a first attempt appended, which a second one settles.
      const ledgerMemo = {};
      // Commit unit (it may run twice): deletes and counts through `trx`, so a rolled-back
      // attempt counted nothing; the flush is asked for again by the attempt that commits.
      return async (trx, completion) => {
        const now = ctx.clock();
        const counts = await store.erasures.eraseSubmission(trx, submissionId, job.id);
        // Again once the rows are gone: a download in between may have written one back. A
        // failure here leaves objects no row points to, which the cleaner deletes.
        if (artifactIds.length > 0) completion.afterCommit(() => store.artifacts.delete(artifactIds));
        const { completed } = await store.erasures.progress(trx, erasureId, counts, now);
        if (completed !== undefined) {
          await store.audit.record(
            trx,
            completed.tenantId,
            { action: 'subject.erased', resourceType: 'erasure', resourceId: erasureId },
            {
              actor: { type: 'system' },
              requestId: job.requestId ?? job.id,
              correlationId: job.correlationId,
            },
            now,
          );
          await ledgerOrWait(() => store.erasures.ledgerCompleted(trx, completed, now, ledgerMemo));
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
