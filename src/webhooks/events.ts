import type { Clock } from '../clock.js';
import type { AuditOrigin } from '../domain/audit.js';
import type { RecoveryWindow, ResendPlan, TenantAccess } from '../store/tenant-access.js';
import { deliveryJob } from './outbox.js';

export interface EventResendOptions {
  clock: Clock;
  /** `WEBHOOK_RETRY_SCHEDULE`: a redelivered or recovered event follows the usual schedule. */
  scheduleMs: number[];
  /** `WEBHOOK_ATTEMPT_RETENTION`: a recovery reaches no further back than attempts are kept. */
  attemptRetentionMs: number;
}

export type RecoverOutcome =
  | { ok: true; recoveryId: string; eventCount: number }
  | { ok: false; reason: 'no_endpoint' | 'endpoint_disabled' }
  | { ok: false; reason: 'too_old'; oldest: Date }
  | { ok: false; reason: 'in_future'; now: Date };

/**
 * Sending an account's events again, for the partner API and the console alike: each takes the
 * account's own access (so another account's or the other mode's event is not found) and the
 * origin its audit event is recorded with. The deliveries are ordinary `webhook.deliver` jobs on
 * the queue: signed when each attempt starts, with the secret in effect then, under the same id.
 */
export class EventResend {
  constructor(private readonly o: EventResendOptions) {}

  /** The delivery jobs of this request: their log lines carry its request and correlation ids. */
  private plan(origin: AuditOrigin): ResendPlan {
    const ids = { correlationId: origin.correlationId ?? null, requestId: origin.requestId };
    return {
      now: this.o.clock(),
      job: (event, at) => deliveryJob(event, at, { scheduleMs: this.o.scheduleMs }, ids),
    };
  }

  redeliver(tenant: TenantAccess, eventId: string, origin: AuditOrigin) {
    return tenant.events.redeliver(eventId, this.plan(origin), origin);
  }

  /**
   * Every failed or held event of the window once more, unless it reaches past the attempts kept
   * or starts in the future (a window no event can be in: refused rather than answered with 0).
   */
  async recover(tenant: TenantAccess, window: RecoveryWindow, origin: AuditOrigin): Promise<RecoverOutcome> {
    const plan = this.plan(origin);
    const oldest = new Date(plan.now.getTime() - this.o.attemptRetentionMs);
    if (window.since < oldest) return { ok: false, reason: 'too_old', oldest };
    if (window.since > plan.now) return { ok: false, reason: 'in_future', now: plan.now };
    return tenant.recoveries.start(window, plan, origin);
  }
}
