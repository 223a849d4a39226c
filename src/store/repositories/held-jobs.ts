import { type Kysely, sql } from 'kysely';
import type { Database } from '../database.js';
import { ERASURE_JOB_TYPE } from '../erasure-job-type.js';

/**
 * A deactivated account's work is held, not run, and not dropped (issue 32): its waiting jobs
 * (pipeline steps, callbacks; never erasures, owed whatever the account's state) move to status `held`, out of the claim's partial index,
 * and back when the account is activated again. Jobs that come due later by another way (a
 * running step's successor, a retry, a callback recorded after) are set aside by the claim
 * itself (`LEASE` in statements.ts), so the claim never runs one either.
 *
 * A held job's SLA deadline is cleared: the partner's `slaDeadlineAt` stays as it was promised,
 * but the operator's SLA-breach count does not blame the service for a wait the account's
 * deactivation caused.
 */

/** The account and its sandbox: jobs of both modes stop and start with the live account. */
function ofAccount(tenantId: string) {
  return sql<boolean>`tenant_id in (select id from tenants where id = ${tenantId} or live_tenant_id = ${tenantId})`;
}

export async function holdWaitingJobs(trx: Kysely<Database>, tenantId: string, now: Date): Promise<void> {
  await trx
    .updateTable('jobs')
    .set({ status: 'held', sla_deadline_at: null, updated_at: now.toISOString() })
    .where(sql<boolean>`status in ('pending', 'retrying')`)
    .where('type', '<>', ERASURE_JOB_TYPE)
    .where(ofAccount(tenantId))
    .execute();
}

/**
 * Back to the state each held job would have had: `retrying` once an attempt ran, `pending`
 * otherwise. Work that came due while held is due from now: it takes its turn behind work
 * already waiting, and the queue-age gauge (and its alert) counts its wait from reactivation,
 * not the days the account was off.
 */
export async function releaseHeldJobs(trx: Kysely<Database>, tenantId: string, now: Date): Promise<void> {
  const iso = now.toISOString();
  await trx
    .updateTable('jobs')
    .set({
      status: sql<string>`case when attempts > 0 then 'retrying' else 'pending' end`,
      run_at: sql<string>`case when run_at < ${iso} then ${iso} else run_at end`,
      updated_at: iso,
    })
    .where(sql<boolean>`status = 'held'`)
    .where(ofAccount(tenantId))
    .execute();
}
