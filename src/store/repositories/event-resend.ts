import type { AuditOrigin } from '../../domain/audit.js';
import type { NewJob } from '../../jobs/types.js';
import { iso, isoOrNull } from '../codec.js';
import type { Driver } from '../driver.js';
import { newId } from '../ids.js';
import type { Executor } from '../prepared.js';
import type { AuditEntry } from '../rows.js';
import type { SystemStore } from '../system-store.js';

/** How a sending is queued: the delivery job of an event (`webhooks/outbox.ts` builds it). */
export interface ResendPlan {
  now: Date;
  /** The delivery job of `event`, due at `at`. */
  job(event: { id: string; tenantId: string; submissionId: string }, at: Date): NewJob;
}

/** Why an event or a window cannot be sent again. */
export type ResendRefusal = 'not_found' | 'no_endpoint' | 'endpoint_disabled';

export type RedeliverOutcome = { ok: true; eventId: string } | { ok: false; reason: ResendRefusal };

export interface RecoveryWindow {
  since: Date;
  until?: Date | undefined;
}

export type RecoveryStart =
  | { ok: true; recoveryId: string; eventCount: number }
  | { ok: false; reason: Exclude<ResendRefusal, 'not_found'> };

/** A recovery and where its events are now. */
export interface RecoveryRecord {
  recoveryId: string;
  since: string;
  until: string | null;
  createdAt: string;
  eventCount: number;
  /** The recovered events by their delivery status now (erased ones are no longer counted). */
  byStatus: { pending: number; delivered: number; failed: number; endpoint_disabled: number };
}

/** The statuses a recovery sends again: failed (attempts exhausted, or no endpoint then) and held. */
const RECOVERABLE = ['failed', 'endpoint_disabled'] as const;

/**
 * Sending an account's events again: one event now (redeliver), or every failed or held event of
 * a window (recover). An event is taken by flipping it to `pending` in the statement that
 * re-checks its status under the row's lock, in the transaction that queues its delivery: so two
 * recoveries of the same window, however they overlap, queue each event once (the second finds
 * it `pending`), and it becomes recoverable again only once that delivery has failed in turn.
 */
export class TenantEventResend {
  constructor(
    private readonly system: Pick<SystemStore, 'batcher' | 'jobs' | 'audit' | 'notifier'>,
    private readonly driver: Pick<Driver, 'db'>,
    readonly tenantId: string,
    private readonly recordRead: (entry: AuditEntry, origin: AuditOrigin) => Promise<void>,
  ) {}

  /**
   * The event is sent again now, with its id (receivers deduplicate on it) and the secret in
   * effect when the attempt is signed: a delivery waiting for its next attempt is brought forward,
   * otherwise a new one starts the schedule.
   */
  async redeliver(eventId: string, plan: ResendPlan, origin: AuditOrigin): Promise<RedeliverOutcome> {
    const { jobs } = this.system;
    // Commit unit: decides from the event, endpoint and job it reads in `trx`.
    const outcome = await this.system.batcher.submit(
      async (trx): Promise<RedeliverOutcome> => {
        const row = await trx
          .selectFrom('webhook_events as e')
          .innerJoin('results as r', 'r.id', 'e.result_id')
          .leftJoin('webhook_endpoints as w', 'w.partner_id', 'e.partner_id')
          .select(['e.id', 'r.submission_id', 'w.status as endpoint_status'])
          .where('e.id', '=', eventId)
          .where('e.tenant_id', '=', this.tenantId)
          .executeTakeFirst();
        if (!row) return { ok: false, reason: 'not_found' };
        if (row.endpoint_status === null) return { ok: false, reason: 'no_endpoint' };
        if (row.endpoint_status !== 'enabled') return { ok: false, reason: 'endpoint_disabled' };
        await this.audit(
          trx,
          { action: 'webhook.redelivered', resourceType: 'webhook_event', resourceId: eventId },
          origin,
          plan.now,
        );
        await this.markPending(trx, [eventId], plan.now);
        const job = plan.job(
          { id: eventId, tenantId: this.tenantId, submissionId: row.submission_id },
          plan.now,
        );
        const waiting = await jobs.findWaiting(trx, job.type, 'eventId', eventId);
        if (waiting) await jobs.runNow(trx, waiting, plan.now);
        else await jobs.enqueue(trx, job, plan.now);
        return { ok: true, eventId };
      },
      { urgent: true },
    );
    if (outcome.ok) this.system.notifier.notify();
    return outcome;
  }

  /**
   * Every failed or held event created in the window, of a partner whose endpoint is enabled, is
   * queued again, oldest first (due one millisecond apart, all due now): the workers take them at
   * their usual pace. Refused when the account has no endpoint, or none enabled.
   */
  async recover(window: RecoveryWindow, plan: ResendPlan, origin: AuditOrigin): Promise<RecoveryStart> {
    // Commit unit: the events are taken by the update in `trx` (a second attempt takes them again,
    // the first one's rollback having put them back); the recovery id is made in it.
    const outcome = await this.system.batcher.submit((trx) => this.takeWindow(trx, window, plan, origin), {
      urgent: true,
    });
    if (outcome.ok && outcome.eventCount > 0) this.system.notifier.notify();
    return outcome;
  }

  private async takeWindow(
    trx: Executor,
    window: RecoveryWindow,
    plan: ResendPlan,
    origin: AuditOrigin,
  ): Promise<RecoveryStart> {
    const endpoints = await trx
      .selectFrom('webhook_endpoints')
      .select('status')
      .where('tenant_id', '=', this.tenantId)
      .execute();
    if (endpoints.length === 0) return { ok: false, reason: 'no_endpoint' };
    if (!endpoints.some((e) => e.status === 'enabled')) return { ok: false, reason: 'endpoint_disabled' };
    let candidates = trx
      .selectFrom('webhook_events as e')
      .innerJoin('results as r', 'r.id', 'e.result_id')
      .innerJoin('webhook_endpoints as w', 'w.partner_id', 'e.partner_id')
      .select(['e.id', 'r.submission_id'])
      .where('e.tenant_id', '=', this.tenantId)
      .where('w.status', '=', 'enabled')
      .where('e.status', 'in', [...RECOVERABLE])
      .where('e.created_at', '>=', window.since.toISOString());
    if (window.until) candidates = candidates.where('e.created_at', '<', window.until.toISOString());
    const found = await candidates.orderBy('e.created_at').orderBy('e.id').execute();
    const taken = new Set(
      await this.markPending(
        trx,
        found.map((e) => e.id),
        plan.now,
        RECOVERABLE,
      ),
    );
    const events = found.filter((e) => taken.has(e.id));
    const recoveryId = newId();
    const nowIso = plan.now.toISOString();
    await trx
      .insertInto('webhook_recoveries')
      .values({
        id: recoveryId,
        tenant_id: this.tenantId,
        since: window.since.toISOString(),
        until: window.until?.toISOString() ?? null,
        event_count: events.length,
        created_at: nowIso,
      })
      .execute();
    for (const [i, event] of events.entries()) {
      await trx
        .insertInto('webhook_recovery_events')
        .values({ recovery_id: recoveryId, event_id: event.id })
        .execute();
      // Oldest first: each due a millisecond before the next, all of them due now.
      const at = new Date(plan.now.getTime() - (events.length - i));
      await this.system.jobs.enqueue(
        trx,
        plan.job({ id: event.id, tenantId: this.tenantId, submissionId: event.submission_id }, at),
        plan.now,
      );
    }
    await this.audit(
      trx,
      { action: 'webhook.recovered', resourceType: 'webhook_recovery', resourceId: recoveryId },
      origin,
      plan.now,
    );
    return { ok: true, recoveryId, eventCount: events.length };
  }

  /**
   * Sets the events `pending`, those still in one of `from` only when given (re-checked under each
   * row's lock on PostgreSQL, by the one writer on SQLite); returns the ids it changed.
   */
  private async markPending(
    trx: Executor,
    ids: string[],
    now: Date,
    from?: readonly string[],
  ): Promise<string[]> {
    if (ids.length === 0) return [];
    let update = trx
      .updateTable('webhook_events')
      .set({ status: 'pending', failure_reason: null, updated_at: now.toISOString() })
      .where('tenant_id', '=', this.tenantId)
      .where('id', 'in', ids);
    if (from) update = update.where('status', 'in', [...from]);
    return (await update.returning('id').execute()).map((r) => r.id);
  }

  private audit(trx: Executor, entry: AuditEntry, origin: AuditOrigin, now: Date): Promise<void> {
    return this.system.audit.record(trx, this.tenantId, entry, origin, now);
  }

  /** The recovery with its events' statuses now; undefined for another account's (or none). */
  async recovery(recoveryId: string, origin: AuditOrigin): Promise<RecoveryRecord | undefined> {
    const db = this.driver.db;
    const row = await db
      .selectFrom('webhook_recoveries')
      .selectAll()
      .where('id', '=', recoveryId)
      .where('tenant_id', '=', this.tenantId)
      .executeTakeFirst();
    if (!row) return undefined;
    const counts = await db
      .selectFrom('webhook_recovery_events as re')
      .innerJoin('webhook_events as e', 'e.id', 're.event_id')
      .select(['e.status', db.fn.countAll().as('n')])
      .where('re.recovery_id', '=', recoveryId)
      .groupBy('e.status')
      .execute();
    const byStatus = { pending: 0, delivered: 0, failed: 0, endpoint_disabled: 0 };
    for (const c of counts) {
      if (c.status in byStatus) byStatus[c.status as keyof typeof byStatus] = Number(c.n);
    }
    await this.recordRead(
      { action: 'recovery.read', resourceType: 'webhook_recovery', resourceId: recoveryId },
      origin,
    );
    return {
      recoveryId: row.id,
      since: iso(row.since),
      until: isoOrNull(row.until),
      createdAt: iso(row.created_at),
      eventCount: row.event_count,
      byStatus,
    };
  }
}
