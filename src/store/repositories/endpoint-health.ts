import type { ApiMode } from '../../domain/mode.js';
import { isoOrNull } from '../codec.js';
import type { Driver } from '../driver.js';
import type { Executor } from '../prepared.js';

/** How long failures must span before the disabling clock counts at all (Svix's rule). */
export const MIN_FAILING_SPAN_MS = 12 * 60 * 60 * 1000;

/** An endpoint disabled by the attempt just recorded. */
export interface DisabledEndpoint {
  tenantId: string;
  partnerId: string;
  failingSince: string;
  reason: string;
}

/**
 * Whether endpoints keep working: the delivery job reports each attempt's outcome here, and an
 * endpoint whose every attempt failed for long enough is disabled (docs/webhooks.md).
 */
export class EndpointHealthRepository {
  constructor(private readonly driver: Driver) {}

  /** Whether the partner's endpoint is disabled (its events are held). */
  async isDisabled(db: Executor, partnerId: string): Promise<boolean> {
    const row = await db
      .selectFrom('webhook_endpoints')
      .select('status')
      .where('partner_id', '=', partnerId)
      .executeTakeFirst();
    return row?.status === 'disabled';
  }

  /** A delivered attempt: the failure clock stops. */
  async delivered(trx: Executor, partnerId: string): Promise<void> {
    await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: null })
      .where('partner_id', '=', partnerId)
      .where('failing_since', 'is not', null)
      .execute();
  }

  /**
   * A failed attempt at `now`: the failure clock starts if it was not running; once every
   * attempt has failed for `disableAfterMs` (and at least 12 hours), the endpoint is disabled.
   * Returns the endpoint when this attempt disabled it.
   */
  async failed(
    trx: Executor,
    partnerId: string,
    now: Date,
    disableAfterMs: number,
  ): Promise<DisabledEndpoint | undefined> {
    await trx
      .updateTable('webhook_endpoints')
      .set({ failing_since: now.toISOString() })
      .where('partner_id', '=', partnerId)
      .where('failing_since', 'is', null)
      .where('status', '=', 'enabled')
      .execute();
    const row = await trx
      .selectFrom('webhook_endpoints')
      .select(['tenant_id', 'status', 'failing_since'])
      .where('partner_id', '=', partnerId)
      .executeTakeFirst();
    if (row?.status !== 'enabled') return undefined;
    const since = isoOrNull(row.failing_since);
    if (since === null) return undefined;
    const failingMs = now.getTime() - Date.parse(since);
    if (failingMs < Math.max(MIN_FAILING_SPAN_MS, disableAfterMs)) return undefined;
    const reason = `Every delivery attempt failed from ${since} to ${now.toISOString()}.`;
    await trx
      .updateTable('webhook_endpoints')
      .set({
        status: 'disabled',
        disabled_at: now.toISOString(),
        disabled_reason: reason,
        updated_at: now.toISOString(),
      })
      .where('partner_id', '=', partnerId)
      .execute();
    return { tenantId: row.tenant_id, partnerId, failingSince: since, reason };
  }

  /** Endpoints by their account's mode and status, for the `healthspan_webhook_endpoints` gauge. */
  async countsByStatus(): Promise<Array<{ mode: ApiMode; status: string; count: number }>> {
    const rows = await this.driver.db
      .selectFrom('webhook_endpoints as e')
      .innerJoin('tenants as t', 't.id', 'e.tenant_id')
      .select(['t.mode', 'e.status', (eb) => eb.fn.countAll<number | string>().as('n')])
      .groupBy(['t.mode', 'e.status'])
      .execute();
    return rows.map((r) => ({ mode: r.mode, status: r.status, count: Number(r.n) }));
  }
}
