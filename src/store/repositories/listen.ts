import { type Kysely, sql, type Transaction } from 'kysely';
import { answerSnippet } from '../../domain/answer-snippet.js';
import type { Database } from '../database.js';
import type { DriverName } from '../driver.js';

/**
 * A place in an account's events, in stream order: after this event. `at` is a
 * `listen_position` as a decimal string (an `xid8` on PostgreSQL, a counter on SQLite).
 */
export interface ListenPosition {
  at: string;
  eventId: string;
}

/** Sorts after every event id: a position with it is after every event at its `at`. */
const LAST_ID = 'ffffffff-ffff-ffff-ffff-ffffffffffff';

export interface ListenEvent {
  eventId: string;
  /** Its `listen_position`, as `ListenPosition.at`. */
  at: string;
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
 * One account's `result.ready` events for the listen stream, in an order no later commit can
 * fall behind (`webhook_events_listen_idx`), and the answers `healthspan listen` reports, kept
 * as `listen` attempts of the event beside the service's own delivery attempts.
 *
 * The order is (`listen_position`, id). On SQLite the position is a counter taken inside the
 * inserting transaction, and SQLite commits one write transaction at a time, so what a stream
 * has not yet seen always comes after it. On PostgreSQL the position is the inserting
 * transaction's id, and ids are taken in one order and committed in another (the commit lanes);
 * so a read takes only positions below its snapshot's xmin, the oldest transaction still
 * running anywhere on the server: every transaction below it has committed or rolled back, and
 * no new one can get an id below it. A transaction held open holds back the events of those that
 * came after it (they are sent once it ends), never past them: a delay, not a loss. This is the
 * transactional-outbox read, and costs the write path nothing (the default fills the column).
 */
export class TenantListen {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: DriverName,
    readonly tenantId: string,
  ) {}

  /**
   * Where a stream opened now starts: after every event of the account visible now. On
   * PostgreSQL also after every position below the oldest running transaction, so the events of
   * transactions still open are streamed (those with an id above the account's newest visible
   * event's, that is: an event begun before the stream and committed after it may go either way).
   */
  async now(): Promise<ListenPosition> {
    if (this.dialect === 'sqlite') {
      const row = await this.db
        .selectFrom('listen_counter')
        .select('position')
        .where('id', '=', 1)
        .executeTakeFirstOrThrow();
      return { at: String(row.position), eventId: LAST_ID };
    }
    const { rows } = await sql<{ xmin: string; newest: string | null }>`
      SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS xmin,
        (SELECT listen_position::text FROM webhook_events
          WHERE tenant_id = ${this.tenantId} AND listen_position IS NOT NULL
          ORDER BY listen_position DESC LIMIT 1) AS newest`.execute(this.db);
    const { xmin, newest } = rows[0]!;
    const belowXmin = BigInt(xmin) - 1n;
    const at = newest !== null && BigInt(newest) > belowXmin ? BigInt(newest) : belowXmin;
    return { at: at.toString(), eventId: LAST_ID };
  }

  /** Up to `limit` events after `after`, in stream order; none that a later commit could precede. */
  async after(after: ListenPosition, limit: number): Promise<ListenEvent[]> {
    const at =
      this.dialect === 'postgres' ? sql<string>`${after.at}::xid8` : sql<number>`${Number(after.at)}`;
    let query = this.db
      .selectFrom('webhook_events')
      .select(['id', 'body', sql<string>`listen_position`.as('at')])
      .where('tenant_id', '=', this.tenantId)
      .where('event_type', '=', 'result.ready')
      .where((eb) =>
        eb.or([
          eb('listen_position', '>', at),
          eb.and([eb('listen_position', '=', at), eb('id', '>', after.eventId)]),
        ]),
      );
    if (this.dialect === 'postgres') {
      query = query.where('listen_position', '<', sql<string>`pg_snapshot_xmin(pg_current_snapshot())`);
    }
    const rows = await query.orderBy('listen_position').orderBy('id').limit(limit).execute();
    return rows.map((r) => ({ eventId: r.id, at: String(r.at), body: r.body }));
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
