import type { AuditOrigin } from '../../domain/audit.js';
import { iso, isoOrNull } from '../codec.js';
import type { Driver } from '../driver.js';
import { type KeysetPage, type KeysetPosition, keysetPage } from '../keyset.js';
import type { Executor } from '../prepared.js';
import type { AuditEntry } from '../rows.js';
import { submissionsByReference } from './submission-list.js';
import type { EventFailureReason, EventStatus } from './webhooks.js';

export interface EventListQuery {
  limit: number;
  /** Where a page starts: after this event's (createdAt, eventId); older ones follow. */
  after?: KeysetPosition | undefined;
  type?: string | undefined;
  deliveryStatus?: EventStatus | undefined;
  /** Created at or after this time. */
  createdAfter?: Date | undefined;
  /** Created before this time. */
  createdBefore?: Date | undefined;
  /** Only the events of submissions with this reference of the partner's (exact match). */
  partnerSubmissionId?: string | undefined;
  /** Only the events of this subject's submissions (the partner's reference, exact match). */
  partnerSubjectId?: string | undefined;
}

/** An event as a list shows it: ids, type, delivery state and times; never its body. */
export interface EventListRecord {
  eventId: string;
  type: string;
  resultId: string;
  submissionId: string;
  /** The partner's references of the event's submission. */
  partnerSubmissionId: string;
  partnerSubjectId: string;
  deliveryStatus: EventStatus;
  failureReason: EventFailureReason | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
  attemptCount: number;
}

export type EventListPage = KeysetPage<EventListRecord>;

/** One attempt to send an event, as its partner reads it back. */
export interface EventAttemptRecord {
  deliveryId: string;
  attempt: number;
  /** `delivery` (sent by the service) or `listen` (forwarded by `healthspan listen`). */
  kind: string;
  startedAt: string;
  url: string;
  statusCode: number | null;
  errorClass: string | null;
  latencyMs: number;
  outcome: string;
  responseSnippet: string | null;
}

/** An event with the exact body that was signed and every attempt kept, oldest first. */
export interface EventDetailRecord extends EventListRecord {
  body: string;
  attempts: EventAttemptRecord[];
}

/**
 * A submission's callback as its page shows it: its event (the newest, if a result was sent more
 * than once), the last attempt to deliver it and, while it fails, the first failed attempt since
 * the last delivered one.
 */
export interface SubmissionCallbackRecord {
  event: EventListRecord;
  lastAttempt: EventAttemptRecord | null;
  failingSince: string | null;
}

/**
 * The columns a list item and the detail share; `submission_id` comes from the event's result,
 * the partner's references from its submission.
 */
const ITEM_COLUMNS = [
  'e.id',
  'e.event_type',
  'e.result_id',
  'r.submission_id',
  's.partner_submission_id',
  's.partner_subject_id',
  'e.status',
  'e.failure_reason',
  'e.created_at',
  'e.updated_at',
  'e.delivered_at',
] as const;

interface ItemRow {
  id: string;
  event_type: string;
  result_id: string;
  submission_id: string;
  partner_submission_id: string;
  partner_subject_id: string;
  status: string;
  failure_reason: string | null;
  created_at: string | Date;
  updated_at: string | Date;
  delivered_at: string | Date | null;
  attempt_count: number | string | bigint;
}

function toItem(row: ItemRow): EventListRecord {
  return {
    eventId: row.id,
    type: row.event_type,
    resultId: row.result_id,
    submissionId: row.submission_id,
    partnerSubmissionId: row.partner_submission_id,
    partnerSubjectId: row.partner_subject_id,
    deliveryStatus: row.status as EventStatus,
    failureReason: row.failure_reason as EventFailureReason | null,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    deliveredAt: isoOrNull(row.delivered_at),
    attemptCount: Number(row.attempt_count),
  };
}

/**
 * One account's `result.ready` events (one account and mode: a sandbox is an account of its own),
 * newest first by keyset on (created_at, id), so events recorded during a walk never shift it.
 * Metadata in the list; the signed body and the attempts in the detail. Every read answered is
 * audited first (`event.listed` once per page, `event.read`).
 */
export class TenantEvents {
  constructor(
    private readonly driver: Pick<Driver, 'db'>,
    readonly tenantId: string,
    private readonly recordRead: (entry: AuditEntry, origin: AuditOrigin) => Promise<void>,
  ) {}

  private items(db: Executor) {
    return db
      .selectFrom('webhook_events as e')
      .innerJoin('results as r', 'r.id', 'e.result_id')
      .innerJoin('submissions as s', 's.id', 'r.submission_id')
      .select(ITEM_COLUMNS)
      .select((eb) =>
        eb
          .selectFrom('webhook_attempts as a')
          .select(eb.fn.countAll().as('n'))
          .whereRef('a.event_id', '=', 'e.id')
          .as('attempt_count'),
      )
      .where('e.tenant_id', '=', this.tenantId);
  }

  async list(q: EventListQuery, origin: AuditOrigin): Promise<EventListPage> {
    let query = this.items(this.driver.db);
    if (q.type !== undefined) query = query.where('e.event_type', '=', q.type);
    if (q.deliveryStatus !== undefined) query = query.where('e.status', '=', q.deliveryStatus);
    if (q.createdAfter) query = query.where('e.created_at', '>=', q.createdAfter.toISOString());
    if (q.createdBefore) query = query.where('e.created_at', '<', q.createdBefore.toISOString());
    const submissions = submissionsByReference(this.driver.db, this.tenantId, q);
    if (submissions) query = query.where('r.submission_id', 'in', submissions);
    const page = await keysetPage(query, { at: 'e.created_at', id: 'e.id' }, q);
    await this.recordRead(
      { action: 'event.listed', resourceType: 'tenant', resourceId: this.tenantId },
      origin,
    );
    return { items: (page.items as ItemRow[]).map(toItem), more: page.more };
  }

  /** The event with its body and attempts; undefined for another account's (or no) event. */
  async get(eventId: string, origin: AuditOrigin): Promise<EventDetailRecord | undefined> {
    const db = this.driver.db;
    const row = (await this.items(db).select('e.body').where('e.id', '=', eventId).executeTakeFirst()) as
      | (ItemRow & { body: string })
      | undefined;
    if (!row) return undefined;
    const attempts = await this.attempts(db, eventId);
    await this.recordRead(
      { action: 'event.read', resourceType: 'webhook_event', resourceId: eventId },
      origin,
    );
    return { ...toItem(row), body: row.body, attempts };
  }

  /**
   * The callback of the submission's result: its event, last delivery attempt and since when it
   * has been failing; undefined when no event was made (no completed result). Audited as a read
   * of the event.
   */
  async ofSubmission(
    submissionId: string,
    origin: AuditOrigin,
  ): Promise<SubmissionCallbackRecord | undefined> {
    const db = this.driver.db;
    const row = (await this.items(db)
      .where('r.submission_id', '=', submissionId)
      .orderBy('e.created_at', 'desc')
      .limit(1)
      .executeTakeFirst()) as ItemRow | undefined;
    if (!row) return undefined;
    const deliveries = (await this.attempts(db, row.id)).filter((a) => a.kind === 'delivery');
    const lastAttempt = deliveries.at(-1) ?? null;
    let failingSince: string | null = null;
    if (lastAttempt?.outcome === 'failed') {
      const lastDelivered = deliveries.findLastIndex((a) => a.outcome === 'delivered');
      failingSince = deliveries[lastDelivered + 1]?.startedAt ?? null;
    }
    await this.recordRead(
      { action: 'event.read', resourceType: 'webhook_event', resourceId: row.id },
      origin,
    );
    return { event: toItem(row), lastAttempt, failingSince };
  }

  /** The event's attempts kept, oldest first. */
  private async attempts(db: Executor, eventId: string): Promise<EventAttemptRecord[]> {
    const attempts = await db
      .selectFrom('webhook_attempts')
      .select([
        'delivery_id',
        'attempt',
        'kind',
        'started_at',
        'url',
        'status_code',
        'error_class',
        'latency_ms',
        'outcome',
        'response_snippet',
      ])
      .where('event_id', '=', eventId)
      .orderBy('started_at')
      .orderBy('attempt')
      .execute();
    return attempts.map((a) => ({
      deliveryId: a.delivery_id,
      attempt: a.attempt,
      kind: a.kind,
      startedAt: iso(a.started_at),
      url: a.url,
      statusCode: a.status_code,
      errorClass: a.error_class,
      latencyMs: a.latency_ms,
      outcome: a.outcome,
      responseSnippet: a.response_snippet,
    }));
  }
}
