import type { AuditOrigin } from '../domain/audit.js';
import { isUuid } from '../domain/ids.js';
import type { RecoveryRecord, RecoveryWindow, ResendRefusal, TenantAccess } from '../store/tenant-access.js';

/** Sending events again, within the account it is handed (`webhooks/events.ts` implements it). */
export interface EventSender {
  redeliver(
    tenant: TenantAccess,
    eventId: string,
    origin: AuditOrigin,
  ): Promise<{ ok: true; eventId: string } | { ok: false; reason: ResendRefusal }>;
  recover(
    tenant: TenantAccess,
    window: RecoveryWindow,
    origin: AuditOrigin,
  ): Promise<
    | { ok: true; recoveryId: string; eventCount: number }
    | { ok: false; reason: 'no_endpoint' | 'endpoint_disabled' }
    | { ok: false; reason: 'too_old'; oldest: Date }
    | { ok: false; reason: 'in_future'; now: Date }
  >;
}

/** Sends one event again now; an id that is not a UUID is not found, like one of another account. */
export async function redeliverEvent(
  sender: EventSender,
  tenant: TenantAccess,
  eventId: string,
  origin: AuditOrigin,
): ReturnType<EventSender['redeliver']> {
  if (!isUuid(eventId)) return { ok: false, reason: 'not_found' };
  return sender.redeliver(tenant, eventId, origin);
}

/** A recovery's progress as a partner reads it (the API's `Recovery` schema, the console's page). */
export interface Recovery {
  recoveryId: string;
  status: 'running' | 'finished';
  since: string;
  until: string | null;
  createdAt: string;
  eventCount: number;
  progress: { pending: number; delivered: number; failed: number; endpointDisabled: number };
}

function recoveryView(record: RecoveryRecord): Recovery {
  const s = record.byStatus;
  return {
    recoveryId: record.recoveryId,
    status: s.pending > 0 ? 'running' : 'finished',
    since: record.since,
    until: record.until,
    createdAt: record.createdAt,
    eventCount: record.eventCount,
    progress: {
      pending: s.pending,
      delivered: s.delivered,
      failed: s.failed,
      endpointDisabled: s.endpoint_disabled,
    },
  };
}

/** The recovery's progress; undefined for an id that is not one of the account's recoveries. */
export async function findRecovery(
  tenant: TenantAccess,
  recoveryId: string,
  origin: AuditOrigin,
): Promise<Recovery | undefined> {
  const found = isUuid(recoveryId) ? await tenant.recoveries.get(recoveryId, origin) : undefined;
  return found ? recoveryView(found) : undefined;
}
