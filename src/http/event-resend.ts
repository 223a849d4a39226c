import { z } from 'zod';
import type { AuditOrigin } from '../domain/audit.js';
import { type EventSender, findRecovery, type Recovery } from '../operations/event-resend.js';
import type { RecoveryWindow, ResendRefusal, TenantAccess } from '../store/tenant-access.js';
import { ApiError, parseBody } from './errors.js';

/**
 * Redelivery and recovery as the API answers them, for its routes and the console's Callbacks
 * page: the recovery window read from a body, and each refusal as its `400`, `404` or `409`.
 */

const isoTime = z.iso.datetime({ offset: true });

export const recoverRequestSchema = z
  .strictObject({
    since: isoTime.meta({
      description:
        'Events created at or after this time (ISO 8601 with offset); no older than WEBHOOK_ATTEMPT_RETENTION (30 days), and not later than now',
    }),
    until: isoTime.optional().meta({ description: 'Events created before this time; now when left out' }),
  })
  .meta({ id: 'RecoverRequest' });

/** The `404` and `409`s of a refused redelivery or recovery, as the API words them. */
export const REFUSALS: Record<ResendRefusal, () => ApiError> = {
  not_found: () => ApiError.notFound('No event with this id in this account.'),
  no_endpoint: () =>
    new ApiError(
      409,
      'WEBHOOK_NOT_CONFIGURED',
      'No callback URL is registered for this account and mode: set one (PUT /v1/webhook-endpoint) first.',
    ),
  endpoint_disabled: () =>
    new ApiError(
      409,
      'WEBHOOK_ENDPOINT_DISABLED',
      'Your callback endpoint is disabled after failing for days: enable it (POST /v1/webhook-endpoint/enable) first.',
    ),
};

/** The recovery window of a request body, or a `400` naming the field. */
export function recoveryWindow(body: unknown): RecoveryWindow {
  const parsed = parseBody(recoverRequestSchema, body, 'The recovery window is not valid.');
  const since = new Date(parsed.since);
  const until = parsed.until === undefined ? undefined : new Date(parsed.until);
  if (until && until <= since) {
    throw ApiError.validation(
      { formErrors: [], fieldErrors: { until: ['until must be later than since.'] } },
      'The recovery window is not valid.',
    );
  }
  return { since, until };
}

/** Starts a recovery of the window, or the refusal a partner can act on. */
export async function startRecovery(
  sender: EventSender,
  tenant: TenantAccess,
  window: RecoveryWindow,
  origin: AuditOrigin,
): Promise<{ recoveryId: string; eventCount: number }> {
  const started = await sender.recover(tenant, window, origin);
  if (started.ok) return { recoveryId: started.recoveryId, eventCount: started.eventCount };
  if (started.reason === 'too_old' || started.reason === 'in_future') {
    const message =
      started.reason === 'too_old'
        ? `since must be ${started.oldest.toISOString()} or later: attempts older than that are no longer kept.`
        : `since must not be later than now (${started.now.toISOString()}): no event is created in the future.`;
    throw ApiError.validation(
      { formErrors: [], fieldErrors: { since: [message] } },
      'The recovery window is not valid.',
    );
  }
  throw REFUSALS[started.reason]();
}

/** The recovery's progress, or `404` for an id that is not one of this account's recoveries. */
export async function readRecovery(
  tenant: TenantAccess,
  recoveryId: string,
  origin: AuditOrigin,
): Promise<Recovery> {
  const found = await findRecovery(tenant, recoveryId, origin);
  if (!found) throw ApiError.notFound('No recovery with this id in this account.');
  return found;
}
