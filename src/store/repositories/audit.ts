import type { Selectable } from 'kysely';
import type {
  AuditAction,
  AuditActor,
  AuditEvent,
  AuditOrigin,
  AuditResourceType,
} from '../../domain/audit.js';
import { iso } from '../codec.js';
import type { AuditEventTable } from '../database.js';
import type { Driver } from '../driver.js';
import { type KeysetPage, type KeysetPosition, keysetPage } from '../keyset.js';
import type { Executor, NamedQuery } from '../prepared.js';
import { AUDIT_COLUMNS, type AuditEntry, auditRow } from '../rows.js';
import { insertAuditEvent } from '../statements.js';

export interface AuditQuery {
  limit: number;
  /** Where a page starts: after this event's (occurredAt, eventId); older ones follow. */
  after?: KeysetPosition | undefined;
  /** Only events at or after this time (operators). */
  since?: Date | undefined;
  action?: AuditAction | undefined;
  /** Only events about these resources (none when empty): a search by the partner's references. */
  resourceIds?: readonly string[] | undefined;
}

/**
 * The append-only audit trail. `record` runs inside the transaction of the action it records
 * (the group commit's), so an action and its event are committed together or not at all.
 */
export class AuditRepository {
  private readonly insert: NamedQuery;

  constructor(private readonly driver: Driver) {
    this.insert = insertAuditEvent(driver.db);
  }

  async record(
    trx: Executor,
    tenantId: string,
    entry: AuditEntry,
    origin: AuditOrigin,
    now: Date,
  ): Promise<void> {
    await this.driver.runner.run(trx, this.insert, { e: auditRow(tenantId, entry, origin, now) });
  }

  /**
   * One account's events, newest first: the whole trail on `audit_events_tenant_idx`; the events
   * of given resources (a search by reference) on `audit_events_resource_idx`, through a subquery
   * that holds the account's condition. Written as one query, the planner without statistics
   * (SQLite is never analysed) walks the account's whole range to spare a sort.
   */
  async list(tenantId: string, q: AuditQuery): Promise<KeysetPage<AuditEvent>> {
    const resourceIds = q.resourceIds;
    if (resourceIds?.length === 0) return { items: [], more: false };
    let query = this.driver.db.selectFrom('audit_events').select(AUDIT_COLUMNS);
    query =
      resourceIds === undefined
        ? query.where('tenant_id', '=', tenantId)
        : query.where('id', 'in', (eb) =>
            eb
              .selectFrom('audit_events')
              .select('id')
              .where('tenant_id', '=', tenantId)
              .where('resource_id', 'in', [...resourceIds]),
          );
    if (q.since) query = query.where('occurred_at', '>=', q.since.toISOString());
    if (q.action) query = query.where('action', '=', q.action);
    const page = await keysetPage(query, { at: 'occurred_at', id: 'id' }, q);
    return { items: page.items.map(toEvent), more: page.more };
  }

  /** Events older than `before` (AUDIT_RETENTION_DAYS), at most `limit` per call. */
  async deleteBefore(trx: Executor, before: Date, limit: number): Promise<number> {
    const res = await trx
      .deleteFrom('audit_events')
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('audit_events')
          .select('id')
          .where('occurred_at', '<', before.toISOString())
          .orderBy('occurred_at')
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}

function toEvent(row: Selectable<AuditEventTable>): AuditEvent {
  const actor: AuditActor = { type: row.actor_type as AuditActor['type'] };
  if (row.actor_id !== null) actor.id = row.actor_id;
  if (row.actor_key_id !== null) actor.keyId = row.actor_key_id;
  const event: AuditEvent = {
    eventId: row.id,
    occurredAt: iso(row.occurred_at),
    tenantId: row.tenant_id,
    action: row.action as AuditAction,
    resourceType: row.resource_type as AuditResourceType,
    resourceId: row.resource_id,
    actor,
    requestId: row.request_id,
    outcome: row.outcome as AuditEvent['outcome'],
  };
  if (row.correlation_id !== null) event.correlationId = row.correlation_id;
  return event;
}
