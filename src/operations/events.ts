import type { AuditOrigin } from '../domain/audit.js';
import { isUuid } from '../domain/ids.js';
import type { TenantAccess } from '../store/tenant-access.js';
import type { PageRead } from './page-read.js';

type EventQuery = Parameters<TenantAccess['events']['list']>[0];

/** The events list's filters besides its time window, as every surface names them. */
export type EventFilters = Pick<
  EventQuery,
  'type' | 'deliveryStatus' | 'partnerSubmissionId' | 'partnerSubjectId'
>;

/** One page of the account's events, newest first (the read is audited as the account's). */
export function eventPage(tenant: TenantAccess, filters: EventFilters, read: PageRead, origin: AuditOrigin) {
  return tenant.events.list(
    { ...filters, createdAfter: read.from, createdBefore: read.to, limit: read.limit, after: read.after },
    origin,
  );
}

/** The event with its attempts; undefined for an id that is not one of the account's events. */
export async function findEvent(tenant: TenantAccess, eventId: string, origin: AuditOrigin) {
  return isUuid(eventId) ? tenant.events.get(eventId, origin) : undefined;
}
