import { sql } from 'kysely';
import type { Driver } from '../driver.js';
import type { Executor } from '../prepared.js';

/**
 * What the cleaner deletes, in bounded batches: each call deletes at most `limit` rows, so one
 * transaction holds its locks briefly however much has piled up.
 */
export class MaintenanceRepository {
  constructor(private readonly driver: Driver) {}

  /**
   * Jobs that finished (completed or failed) before `before`, with their attempts. A finished job
   * is never written again, so its `updated_at` is when it finished (`jobs_finished_idx`).
   */
  async deleteFinishedJobs(
    trx: Executor,
    before: Date,
    limit: number,
  ): Promise<{ jobs: number; attempts: number }> {
    const deleted = await trx
      .deleteFrom('jobs')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('jobs')
          .select('id')
          .where(sql<boolean>`status in ('completed', 'failed')`)
          .where('updated_at', '<', before.toISOString())
          .orderBy('updated_at')
          .limit(limit),
      )
      .returning('id')
      .execute();
    if (deleted.length === 0) return { jobs: 0, attempts: 0 };
    const attempts = await trx
      .deleteFrom('job_attempts')
      .where(
        'job_id',
        'in',
        deleted.map((row) => row.id),
      )
      .executeTakeFirst();
    return { jobs: deleted.length, attempts: Number(attempts.numDeletedRows) };
  }

  /**
   * Webhook delivery attempts made before `before`, with the receiver's answers they keep (the
   * partner reads them back in the event's attempts no longer than this), oldest first
   * (`webhook_attempts_started_idx`).
   */
  async deleteWebhookAttempts(trx: Executor, before: Date, limit: number): Promise<number> {
    const res = await trx
      .deleteFrom('webhook_attempts')
      .where('delivery_id', 'in', (eb) =>
        eb
          .selectFrom('webhook_attempts')
          .select('delivery_id')
          .where('started_at', '<', before.toISOString())
          .orderBy('started_at')
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** Which of `ids` name an available artifact (the rest of an object store's objects are orphans). */
  async availableArtifacts(db: Executor, ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await db
      .selectFrom('artifacts')
      .select('id')
      .where('id', 'in', ids)
      .where('availability', '=', 'available')
      .execute();
    return new Set(rows.map((r) => r.id));
  }

  /** Idempotency records that expired before `before` (their keys are free since then). */
  async deleteExpiredIdempotencyKeys(trx: Executor, before: Date, limit: number): Promise<number> {
    const res = await trx
      .deleteFrom('idempotency_keys')
      .where(
        sql<boolean>`(partner_id, key_hash) in (${trx
          .selectFrom('idempotency_keys')
          .select(['partner_id', 'key_hash'])
          .where('expires_at', '<', before.toISOString())
          .orderBy('expires_at')
          .limit(limit)})`,
      )
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /**
   * Submissions past their account's retention period (by `received_at`), oldest first, at most
   * `limit`. `defaultDays` is RETENTION_DAYS; an account's own setting overrides it; 0 keeps.
   */
  async expiredSubmissions(
    db: Executor,
    now: Date,
    defaultDays: number,
    limit: number,
  ): Promise<Array<{ id: string; tenantId: string }>> {
    const tenants = await db.selectFrom('tenants').select(['id', 'retention_days']).execute();
    const out: Array<{ id: string; tenantId: string }> = [];
    for (const tenant of tenants) {
      const days = tenant.retention_days ?? defaultDays;
      if (days <= 0 || out.length >= limit) continue;
      const before = new Date(now.getTime() - days * 24 * 60 * 60 * 1000).toISOString();
      const rows = await db
        .selectFrom('submissions')
        .select('id')
        .where('tenant_id', '=', tenant.id)
        .where('received_at', '<', before)
        .orderBy('received_at')
        .limit(limit - out.length)
        .execute();
      for (const row of rows) out.push({ id: row.id, tenantId: tenant.id });
    }
    return out;
  }

  /** Rows of the tables the cleaner keeps small (for tests and operators). */
  async counts(): Promise<{ jobs: number; jobAttempts: number; idempotencyKeys: number }> {
    const count = async (table: 'jobs' | 'job_attempts' | 'idempotency_keys') =>
      Number(
        (
          await this.driver.db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      jobs: await count('jobs'),
      jobAttempts: await count('job_attempts'),
      idempotencyKeys: await count('idempotency_keys'),
    };
  }
}
