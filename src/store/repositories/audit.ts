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
import type { Executor, NamedQuery } from '../prepared.js';
import { AUDIT_COLUMNS, type AuditEntry, auditRow } from '../rows.js';
import { insertAuditEvent } from '../statements.js';

/** Where a page of events starts: after this one (newest first). */
export interface AuditCursor {
  occurredAt: string;
  eventId: string;
}

export interface AuditQuery {
  limit: number;
  after?: AuditCursor | undefined;
  /** Only events at or after this time (operators). */
  since?: Date | undefined;
  action?: AuditAction | undefined;
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

  /** One account's events, newest first; `limit + 1` are read to know whether more follow. */
  async list(tenantId: string, q: AuditQuery): Promise<{ items: AuditEvent[]; more: boolean }> {
    let query = this.driver.db
      .selectFrom('audit_events')
      .select(AUDIT_COLUMNS)
      .where('tenant_id', '=', tenantId)
      .orderBy('occurred_at', 'desc')
      .orderBy('id', 'desc')
      .limit(q.limit + 1);
    const after = q.after;
    if (after) {
      query = query.where((eb) =>
        eb.or([
          eb('occurred_at', '<', after.occurredAt),
          eb.and([eb('occurred_at', '=', after.occurredAt), eb('id', '<', after.eventId)]),
        ]),
      );
    }
    if (q.since) query = query.where('occurred_at', '>=', q.since.toISOString());
    if (q.action) query = query.where('action', '=', q.action);
    const rows = await query.execute();
    return { items: rows.slice(0, q.limit).map(toEvent), more: rows.length > q.limit };
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
