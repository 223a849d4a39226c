import type { components, operations } from './generated/openapi.js';
import { type ListFilters, listing, type PageQuery } from './listing.js';

export type EventListItem = components['schemas']['EventListItem'];
export type EventPage = components['schemas']['EventPage'];
export type EventDetail = components['schemas']['EventDetail'];
export type EventAttempt = components['schemas']['EventAttempt'];
export type RedeliveryAccepted = components['schemas']['RedeliveryAccepted'];
export type RecoveryStarted = components['schemas']['RecoveryStarted'];
export type Recovery = components['schemas']['Recovery'];
type ListQuery = NonNullable<operations['listEvents']['parameters']['query']>;

type Time = Date | string;

/**
 * What to find: `type`, `deliveryStatus` (`pending`, `delivered`, `failed`, `endpoint_disabled`)
 * and the creation window (`createdAfter` inclusive, `createdBefore` exclusive; a `Date` or an
 * ISO 8601 string with its offset). `limit` is the page size (1 to 200, default 50).
 */
export type EventFilters = ListFilters<ListQuery, 'createdAfter' | 'createdBefore'>;

/** One page's query: the filters, and `cursor`, the previous page's `nextCursor` (none or null: the first). */
export type EventListQuery = PageQuery<EventFilters>;

/** The window of a recovery: events created at or after `since`, and before `until` (now when left out). */
export interface RecoverWindow {
  since: Time;
  until?: Time;
}

const iso = (t: Time) => (t instanceof Date ? t.toISOString() : t);

/** The calls `events` is made of, each carrying the client's key and retries. */
export interface EventCalls {
  list(query: ListQuery): Promise<EventPage>;
  get(eventId: string): Promise<EventDetail>;
  redeliver(eventId: string): Promise<RedeliveryAccepted>;
  recover(body: { since: string; until?: string }): Promise<RecoveryStarted>;
}

/**
 * `events.list`, `events.iterate`, `events.get`, `events.redeliver` and `events.recover`. A walk
 * sees every event that existed when it started exactly once, newest first, whatever is recorded
 * meanwhile. Redeliver and recover are safe to retry: the event keeps its id, and a recovery
 * never queues an event that is already waiting to be sent.
 */
export function eventOperations(calls: EventCalls) {
  return {
    ...listing(calls.list, ['createdAfter', 'createdBefore']),

    /** The event's exact signed body and its attempts (with what your callback endpoint answered). */
    get: (eventId: string): Promise<EventDetail> => calls.get(eventId),

    /** Sends the event again now, under its id, signed with the secret in effect. */
    redeliver: (eventId: string): Promise<RedeliveryAccepted> => calls.redeliver(eventId),

    /** Sends again every failed, held or never-sent event of the window; follow it with `recoveries.get`. */
    recover(window: RecoverWindow): Promise<RecoveryStarted> {
      return calls.recover({
        since: iso(window.since),
        ...(window.until ? { until: iso(window.until) } : {}),
      });
    },
  };
}
