import { z } from 'zod';
import type { AuditOrigin } from '../domain/audit.js';
import { type EventFilters, eventPage, findEvent } from '../operations/events.js';
import type { TenantAccess } from '../store/tenant-access.js';
import type { PageCursors } from './cursor.js';
import { ApiError } from './errors.js';
import {
  DELIVERY_STATUSES,
  EVENT_TYPES,
  type EventDetail,
  type EventPage,
  eventDetail,
  eventListItem,
} from './event-schemas.js';
import {
  listCursor,
  listLimit,
  parseListQuery,
  queryReference,
  queryTime,
  readList,
  timeMessages,
} from './list-query.js';

/**
 * The events list and one event as partners read them, the API's `GET /v1/events` and the
 * console's Callbacks page alike: the query's `400`s, the signed page cursors, the presenters.
 */

export const eventListQuery = z
  .object({
    type: z.enum(EVENT_TYPES).optional().meta({ description: 'Only events of this type' }),
    deliveryStatus: z
      .enum(DELIVERY_STATUSES)
      .optional()
      .meta({ description: 'Only events in this delivery status (e.g. failed)' }),
    createdAfter: queryTime('Only events created at or after this time (ISO 8601 with offset)'),
    createdBefore: queryTime('Only events created before this time (ISO 8601 with offset)'),
    partnerSubmissionId: queryReference(
      'Only the events of submissions with this reference of yours (exact match)',
    ),
    partnerSubjectId: queryReference(
      "Only the events of this subject's submissions (your reference, exact match)",
    ),
    limit: listLimit,
    cursor: listCursor,
  })
  .strict();

const MESSAGES: Readonly<Record<string, string>> = {
  type: `type must be one of ${EVENT_TYPES.join(', ')}.`,
  deliveryStatus: `deliveryStatus must be one of ${DELIVERY_STATUSES.join(', ')}.`,
  ...timeMessages('createdAfter', 'createdBefore'),
};

export type EventListParams = z.output<typeof eventListQuery>;

/** The list's query as the API reads it (the console's filter form goes through this too). */
export function parseEventListQuery(query: unknown): EventListParams {
  return parseListQuery(eventListQuery, query, MESSAGES);
}

export interface EventListOptions {
  cursors: PageCursors;
}

/**
 * One page of the account's events for the parsed query: what the route answers, and what the
 * console's page shows with the same cursors. Throws `400`s naming the parameter.
 */
export async function findEvents(
  tenant: TenantAccess,
  q: EventListParams,
  origin: AuditOrigin,
  opts: EventListOptions,
): Promise<EventPage> {
  const filters: EventFilters = {
    type: q.type,
    deliveryStatus: q.deliveryStatus,
    partnerSubmissionId: q.partnerSubmissionId,
    partnerSubjectId: q.partnerSubjectId,
  };
  const window = {
    names: ['createdAfter', 'createdBefore'],
    after: q.createdAfter,
    before: q.createdBefore,
  } as const;
  return readList(
    opts.cursors,
    { list: 'events', tenantId: tenant.tenantId, limit: q.limit, cursor: q.cursor, filters, window },
    (r) => eventPage(tenant, filters, r, origin),
    (record) => ({ at: record.createdAt, id: record.eventId }),
    eventListItem,
  );
}

/** The event with its attempts, or `404` for an id that is not one of this account's events. */
export async function readEvent(
  tenant: TenantAccess,
  eventId: string,
  origin: AuditOrigin,
): Promise<EventDetail> {
  const found = await findEvent(tenant, eventId, origin);
  if (!found) throw ApiError.notFound('No event with this id in this account.');
  return eventDetail(found);
}
