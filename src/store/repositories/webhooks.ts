import { sql } from 'kysely';
import type { ApiMode } from '../../domain/mode.js';
import { iso, isoOrNull } from '../codec.js';
import type { Driver } from '../driver.js';
import { newId } from '../ids.js';
import { type Executor as Db, type NamedQuery, namedQuery, slot } from '../prepared.js';

export interface EndpointRecord {
  partnerId: string;
  tenantId: string;
  /** Its account's mode: a sandbox credential's endpoint is the test endpoint. */
  mode: ApiMode;
  url: string;
  apiKeySealed: string | null;
  apiKeyHeader: string | null;
}

export interface SecretRecord {
  id: string;
  secretSealed: string;
  activatesAt: string;
}

/** The report a `result.ready` event names: pdf, else json, else html (partner-api.md, Events). */
export const REPORT_PREFERENCE = ['pdf', 'json', 'html'] as const;

export interface ReadyEventSource {
  /** The partner's endpoint: `enabled`, `disabled`, or null when none is registered. */
  endpoint_status: string | null;
  id: string;
  tenant_id: string;
  partner_id: string;
  partner_submission_id: string;
  status: string;
  result_id: string;
  report_id: string | null;
}

export interface EventRecord {
  id: string;
  tenantId: string;
  partnerId: string;
  resultId: string;
  body: string;
  status: EventStatus;
  failureReason: EventFailureReason | null;
  deliveredAt: string | null;
  createdAt: string;
}

/**
 * `pending` while a delivery is queued or running, until a 2xx; `failed` after the last
 * scheduled attempt, or at once when no endpoint was registered (`failureReason` says which);
 * `endpoint_disabled` while its endpoint is disabled (held, not dropped). Every one but
 * `delivered` can be sent again (redeliver, recover).
 */
export type EventStatus = 'pending' | 'delivered' | 'failed' | 'endpoint_disabled';

/** Why a `failed` event failed. */
export type EventFailureReason = 'no_endpoint' | 'attempts_exhausted';

export interface AttemptRecord {
  deliveryId: string;
  eventId: string;
  partnerId: string;
  attempt: number;
  url: string;
  startedAt: string;
  latencyMs: number;
  statusCode: number | null;
  errorClass: string | null;
  outcome: 'delivered' | 'failed';
  /** The first 1 KiB of the receiver's answer as text, control characters removed; null without one. */
  responseSnippet?: string | null;
}

/** Endpoints, secrets, the event outbox and the attempt log. Sealed values stay sealed here. */
export class WebhooksRepository {
  /** Run for every completed submission: built once, run as a prepared statement. */
  private readonly readySource: NamedQuery;

  constructor(private readonly driver: Driver) {
    const db = driver.db;
    this.readySource = namedQuery(
      db
        .selectFrom('submissions as s')
        .innerJoin('results as r', 'r.submission_id', 's.id')
        .leftJoin('webhook_endpoints as e', 'e.partner_id', 's.partner_id')
        .select((eb) => [
          'e.status as endpoint_status',
          's.id',
          's.tenant_id',
          's.partner_id',
          's.partner_submission_id',
          's.status',
          'r.id as result_id',
          eb
            .selectFrom('artifacts as a')
            .select('a.id')
            .whereRef('a.result_id', '=', 'r.id')
            .where('a.availability', '=', slot('available'))
            .orderBy(
              sql`case a.type ${sql.join(
                REPORT_PREFERENCE.map((type, i) => sql`when ${sql.lit(type)} then ${sql.lit(i)}`),
                sql` `,
              )} else ${sql.lit(REPORT_PREFERENCE.length)} end`,
            )
            .limit(sql<number>`1`)
            .as('report_id'),
        ])
        .where('s.id', '=', slot('submissionId'))
        .compile(),
    );
  }

  /**
   * What a `result.ready` event says about a submission, with the report it points at (the
   * preferred available artifact) and the state of its partner's endpoint.
   */
  async readyEventSource(trx: Db, submissionId: string): Promise<ReadyEventSource | undefined> {
    const [row] = await this.driver.runner.all<ReadyEventSource>(trx, this.readySource, {
      submissionId,
      available: 'available',
    });
    return row;
  }

  /** What a redelivery of a result's event needs to know about its submission. */
  async resultSource(
    db: Db,
    resultId: string,
    /** Only a result of this account (the test events route); any when not given. */
    tenantId?: string,
  ): Promise<
    | { submissionId: string; partnerId: string; status: string; correlationId: string; requestId: string }
    | undefined
  > {
    let query = db
      .selectFrom('results as r')
      .innerJoin('submissions as s', 's.id', 'r.submission_id')
      .select(['s.id', 's.partner_id', 's.status', 's.correlation_id', 's.request_id'])
      .where('r.id', '=', resultId);
    if (tenantId !== undefined) query = query.where('r.tenant_id', '=', tenantId);
    const row = await query.executeTakeFirst();
    return row
      ? {
          submissionId: row.id,
          partnerId: row.partner_id,
          status: row.status,
          correlationId: row.correlation_id,
          requestId: row.request_id,
        }
      : undefined;
  }

  async endpoint(db: Db, partnerId: string): Promise<EndpointRecord | undefined> {
    const row = await db
      .selectFrom('webhook_endpoints as e')
      .innerJoin('tenants as t', 't.id', 'e.tenant_id')
      .select(['e.partner_id', 'e.tenant_id', 't.mode', 'e.url', 'e.api_key_sealed', 'e.api_key_header'])
      .where('e.partner_id', '=', partnerId)
      .executeTakeFirst();
    return row
      ? {
          partnerId: row.partner_id,
          tenantId: row.tenant_id,
          mode: row.mode,
          url: row.url,
          apiKeySealed: row.api_key_sealed,
          apiKeyHeader: row.api_key_header,
        }
      : undefined;
  }

  /** Creates or replaces the partner's endpoint; returns whether it existed before. */
  async upsertEndpoint(
    trx: Db,
    endpoint: Omit<EndpointRecord, 'mode'>,
    now: Date,
  ): Promise<{ existed: boolean }> {
    const existed = (await this.endpoint(trx, endpoint.partnerId)) !== undefined;
    const values = {
      url: endpoint.url,
      api_key_sealed: endpoint.apiKeySealed,
      api_key_header: endpoint.apiKeyHeader,
      updated_at: now.toISOString(),
    };
    if (existed) {
      await trx
        .updateTable('webhook_endpoints')
        .set(values)
        .where('partner_id', '=', endpoint.partnerId)
        .execute();
    } else {
      await trx
        .insertInto('webhook_endpoints')
        .values({
          ...values,
          partner_id: endpoint.partnerId,
          tenant_id: endpoint.tenantId,
          created_at: now.toISOString(),
        })
        .execute();
    }
    return { existed };
  }

  async addSecret(
    trx: Db,
    partnerId: string,
    secretSealed: string,
    activatesAt: Date,
    now: Date,
  ): Promise<void> {
    await trx
      .insertInto('webhook_secrets')
      .values({
        id: newId(),
        partner_id: partnerId,
        secret_sealed: secretSealed,
        activates_at: activatesAt.toISOString(),
        created_at: now.toISOString(),
      })
      .execute();
  }

  /** Newest first. */
  async secrets(db: Db, partnerId: string): Promise<SecretRecord[]> {
    const rows = await db
      .selectFrom('webhook_secrets')
      .select(['id', 'secret_sealed', 'activates_at'])
      .where('partner_id', '=', partnerId)
      .orderBy('activates_at', 'desc')
      .orderBy('id', 'desc')
      .execute();
    return rows.map((r) => ({ id: r.id, secretSealed: r.secret_sealed, activatesAt: iso(r.activates_at) }));
  }

  async insertEvent(
    trx: Db,
    event: {
      id: string;
      tenantId: string;
      partnerId: string;
      resultId: string;
      body: string;
      status: EventStatus;
      failureReason: EventFailureReason | null;
    },
    now: Date,
  ): Promise<boolean> {
    const res = await trx
      .insertInto('webhook_events')
      .values({
        ...(this.driver.name === 'sqlite' ? { listen_position: await nextListenPosition(trx) } : {}),
        id: event.id,
        tenant_id: event.tenantId,
        partner_id: event.partnerId,
        result_id: event.resultId,
        event_type: 'result.ready',
        body: event.body,
        status: event.status,
        failure_reason: event.failureReason,
        delivered_at: null,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async event(db: Db, eventId: string): Promise<EventRecord | undefined> {
    const row = await db
      .selectFrom('webhook_events')
      .selectAll()
      .where('id', '=', eventId)
      .executeTakeFirst();
    return row ? toEvent(row) : undefined;
  }

  async eventForResult(db: Db, resultId: string): Promise<EventRecord | undefined> {
    const row = await db
      .selectFrom('webhook_events')
      .selectAll()
      .where('result_id', '=', resultId)
      .executeTakeFirst();
    return row ? toEvent(row) : undefined;
  }

  async setEventStatus(
    trx: Db,
    eventId: string,
    status: EventStatus,
    now: Date,
    failureReason: EventFailureReason | null = null,
  ): Promise<void> {
    await trx
      .updateTable('webhook_events')
      .set({
        status,
        failure_reason: status === 'failed' ? failureReason : null,
        updated_at: now.toISOString(),
        ...(status === 'delivered' ? { delivered_at: now.toISOString() } : {}),
      })
      .where('id', '=', eventId)
      .execute();
  }

  async recordAttempt(trx: Db, attempt: AttemptRecord): Promise<void> {
    await trx
      .insertInto('webhook_attempts')
      .values({
        delivery_id: attempt.deliveryId,
        event_id: attempt.eventId,
        partner_id: attempt.partnerId,
        attempt: attempt.attempt,
        url: attempt.url,
        started_at: attempt.startedAt,
        latency_ms: attempt.latencyMs,
        status_code: attempt.statusCode,
        error_class: attempt.errorClass,
        outcome: attempt.outcome,
        response_snippet: attempt.responseSnippet ?? null,
      })
      .execute();
  }

  /** The partner's most recent events, newest first, each with its attempts in order. */
  async deliveries(
    partnerId: string,
    limit: number,
  ): Promise<Array<EventRecord & { attempts: AttemptRecord[] }>> {
    const events = (
      await this.driver.db
        .selectFrom('webhook_events')
        .selectAll()
        .where('partner_id', '=', partnerId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute()
    ).map(toEvent);
    if (events.length === 0) return [];
    const attempts = await this.driver.db
      .selectFrom('webhook_attempts')
      .selectAll()
      .where(
        'event_id',
        'in',
        events.map((e) => e.id),
      )
      .orderBy('started_at')
      .orderBy('attempt')
      .execute();
    return events.map((e) => ({
      ...e,
      attempts: attempts
        .filter((a) => a.event_id === e.id)
        .map((a) => ({
          deliveryId: a.delivery_id,
          eventId: a.event_id,
          partnerId: a.partner_id,
          attempt: a.attempt,
          url: a.url,
          startedAt: iso(a.started_at),
          latencyMs: a.latency_ms,
          statusCode: a.status_code,
          errorClass: a.error_class,
          outcome: a.outcome as AttemptRecord['outcome'],
        })),
    }));
  }
}

/**
 * SQLite: the next event's place in the test events stream, taken inside the inserting
 * transaction. SQLite writes one transaction at a time (both of a process's connections, and
 * every process, take the same write lock), so these numbers are in commit order and a stream
 * reading by them cannot pass an event that commits later. PostgreSQL needs nothing here: the
 * column's default is the transaction's id (`0020_listen_position`, `TenantListen`).
 */
async function nextListenPosition(trx: Db): Promise<number> {
  const row = await trx
    .updateTable('listen_counter')
    .set((eb) => ({ position: eb('position', '+', 1) }))
    .where('id', '=', 1)
    .returning('position')
    .executeTakeFirstOrThrow();
  return Number(row.position);
}

function toEvent(row: {
  id: string;
  tenant_id: string;
  partner_id: string;
  result_id: string;
  body: string;
  status: string;
  failure_reason: string | null;
  delivered_at: string | Date | null;
  created_at: string | Date;
}): EventRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    partnerId: row.partner_id,
    resultId: row.result_id,
    body: row.body,
    status: row.status as EventStatus,
    failureReason: row.failure_reason as EventFailureReason | null,
    deliveredAt: isoOrNull(row.delivered_at),
    createdAt: iso(row.created_at),
  };
}
