import type { Transaction } from 'kysely';
import { v5 as uuidv5 } from 'uuid';
import { type SubmissionStatus, submissionStatusLabel } from '../domain/statuses.js';
import type { NewJob } from '../queue/types.js';
import type { Database } from '../store/database.js';
import type { SystemStore } from '../store/index.js';
import { type ResultReadyBody, resultReadyBodySchema } from './event-body.js';
import { EVENT_TYPE } from './signing.js';

/** One event per result, whatever re-runs or redeliveries happen: the id derives from the result. */
export function eventIdFor(resultId: string): string {
  return uuidv5(EVENT_TYPE, resultId);
}

/**
 * The event body, exactly the spec's fields in the spec's order and nothing else (no tenant,
 * job or model data). Serialised once through its schema, stored, and sent byte for byte on
 * every attempt.
 */
export function resultReadyBody(
  input: Omit<ResultReadyBody, 'eventType' | 'statusLabel' | 'status'> & { status: string },
): string {
  const body = resultReadyBodySchema.parse({
    eventType: EVENT_TYPE,
    resultId: input.resultId,
    submissionId: input.submissionId,
    partnerSubmissionId: input.partnerSubmissionId,
    status: input.status,
    statusLabel: submissionStatusLabel(input.status),
    completedAt: input.completedAt,
    ...(input.reportId ? { reportId: input.reportId } : {}),
  });
  return JSON.stringify(body);
}

export interface DeliveryJobPolicy {
  /** `WEBHOOK_RETRY_SCHEDULE`: the delay before each attempt, one entry per attempt. */
  scheduleMs: number[];
}

/** The job kind that sends one event's attempts. */
export const DELIVER_KIND = 'webhook.deliver';

/** The ids of the request a delivery follows from, so its attempts' log lines join that request's. */
export interface DeliveryIds {
  correlationId: string | null;
  requestId: string | null;
}

export function deliveryJob(
  event: { id: string; tenantId: string; submissionId: string },
  now: Date,
  policy: DeliveryJobPolicy,
  ids: DeliveryIds = { correlationId: null, requestId: null },
): NewJob {
  return {
    type: DELIVER_KIND,
    tenantId: event.tenantId,
    // Attached to the submission, so erasing it finds its deliveries; the submission's job list
    // still shows only pipeline steps (decisions.md).
    submissionId: event.submissionId,
    payload: { eventId: event.id },
    correlationId: ids.correlationId,
    requestId: ids.requestId,
    acceptedAt: now.toISOString(),
    slaDeadlineAt: null,
    maxAttempts: Math.max(1, policy.scheduleMs.length),
    runAt: new Date(now.getTime() + (policy.scheduleMs[0] ?? 0)).toISOString(),
  };
}

/**
 * The transactional outbox: called in the transaction that completes a submission's result. It
 * stores the result's `result.ready` event whatever the partner's callback (the partner sees
 * every event, `healthspan listen` streams test ones, a recovery can send them later) and, when
 * the partner has an enabled endpoint, enqueues its delivery in that same transaction, so a
 * completed result and its event are committed together or not at all. Without an endpoint the
 * event is `failed` (`no_endpoint`); with a disabled one it is held (`endpoint_disabled`).
 * Returns the event id when a delivery was enqueued; undefined otherwise (none to send, or the
 * event already exists).
 */
export async function recordResultReady(
  store: SystemStore,
  trx: Transaction<Database>,
  input: {
    submissionId: string;
    /** The status the event states, when the submission's row does not say it yet (`endSubmission`). */
    status?: SubmissionStatus;
    now: Date;
    ids: DeliveryIds;
    policy: DeliveryJobPolicy;
  },
  enqueue: (job: NewJob) => Promise<unknown>,
): Promise<string | undefined> {
  const row = await store.webhooks.readyEventSource(trx, input.submissionId);
  if (!row) return undefined;
  const event = {
    id: eventIdFor(row.result_id),
    tenantId: row.tenant_id,
    partnerId: row.partner_id,
    submissionId: row.id,
  };
  const sending = row.endpoint_status === 'enabled';
  const inserted = await store.webhooks.insertEvent(
    trx,
    {
      ...event,
      resultId: row.result_id,
      body: resultReadyBody({
        resultId: row.result_id,
        submissionId: row.id,
        partnerSubmissionId: row.partner_submission_id,
        status: input.status ?? row.status,
        completedAt: input.now.toISOString(),
        ...(row.report_id ? { reportId: row.report_id } : {}),
      }),
      status: sending ? 'pending' : row.endpoint_status === null ? 'failed' : 'endpoint_disabled',
      failureReason: row.endpoint_status === null ? 'no_endpoint' : null,
    },
    input.now,
  );
  if (!inserted || !sending) return undefined;
  await enqueue(deliveryJob(event, input.now, input.policy, input.ids));
  return event.id;
}
