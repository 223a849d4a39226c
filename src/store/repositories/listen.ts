import type { Kysely, Transaction } from 'kysely';
import { answerSnippet } from '../../domain/answer-snippet.js';
import { iso } from '../codec.js';
import type { Database } from '../database.js';

/** A place in an account's events, oldest first: after this event. */
export interface ListenPosition {
  createdAt: string;
  eventId: string;
}

export interface ListenEvent {
  eventId: string;
  createdAt: string;
  /** The exact bytes every delivery of the event sends. */
  body: string;
}

/** What `healthspan listen` reports after forwarding an event to the developer's machine. */
export interface ListenAnswer {
  eventId: string;
  /** The id the streamed message carried (`X-Healthspan-Delivery-Id`): a report counts once. */
  deliveryId: string;
  url: string;
  statusCode: number | null;
  errorClass: string | null;
  latencyMs: number;
  /** The local receiver's answer; kept as `answerSnippet` makes it. */
  responseText: string | null;
  startedAt: Date;
}

/**
 * One account's `result.ready` events for the listen stream, oldest first by keyset on
 * (created_at, id) (`webhook_events_list_idx`), and the answers `healthspan listen` reports,
 * kept as `listen` attempts of the event beside the service's own delivery attempts.
 */
export class TenantListen {
  constructor(
    private readonly db: Kysely<Database>,
    readonly tenantId: string,
  ) {}

  /** Events after `after` created before `settledBefore`, oldest first. */
  async after(after: ListenPosition, settledBefore: Date, limit: number): Promise<ListenEvent[]> {
    const rows = await this.db
      .selectFrom('webhook_events')
      .select(['id', 'created_at', 'body'])
      .where('tenant_id', '=', this.tenantId)
      .where('event_type', '=', 'result.ready')
      .where('created_at', '<', settledBefore.toISOString())
      .where((eb) =>
        eb.or([
          eb('created_at', '>', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '>', after.eventId)]),
        ]),
      )
      .orderBy('created_at')
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((r) => ({ eventId: r.id, createdAt: iso(r.created_at), body: r.body }));
  }

  /**
   * Records the answer as a `listen` attempt of the account's event; false when the event is
   * not this account's. Reported twice (a retried report), it is kept once. The event's own
   * delivery status is left alone: a forward to a laptop is not a delivery.
   */
  async recordAnswer(trx: Transaction<Database>, answer: ListenAnswer): Promise<boolean> {
    const event = await trx
      .selectFrom('webhook_events')
      .select(['id', 'partner_id'])
      .where('id', '=', answer.eventId)
      .where('tenant_id', '=', this.tenantId)
      .executeTakeFirst();
    if (!event) return false;
    const { count } = await trx
      .selectFrom('webhook_attempts')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('event_id', '=', event.id)
      .executeTakeFirstOrThrow();
    const ok = answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300;
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: answer.deliveryId,
        event_id: event.id,
        partner_id: event.partner_id,
        attempt: Number(count) + 1,
        url: answer.url,
        started_at: answer.startedAt.toISOString(),
        latency_ms: answer.latencyMs,
        status_code: answer.statusCode,
        error_class: answer.errorClass,
        outcome: ok ? 'delivered' : 'failed',
        kind: 'listen',
        response_snippet: answer.responseText === null ? null : answerSnippet(answer.responseText),
      })
      .onConflict((oc) => oc.column('delivery_id').doNothing())
      .execute();
    return true;
  }
}
