import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { addToContext } from '../context.js';
import { type ApiMode, SIMULATIONS, simulationOf } from '../domain/mode.js';
import type { JobKinds } from '../queue/kinds.js';
import type { ClaimedJob, Completion, HandlerContext, JobDefinition } from '../queue/types.js';
import { ExpectedJobError, PermanentJobError } from '../queue/types.js';
import type { SecretBox } from '../secret-box.js';
import type { SystemStore } from '../store/index.js';
import type { DisabledEndpoint } from '../store/repositories/endpoint-health.js';
import type { AttemptRecord, EndpointRecord, EventRecord } from '../store/repositories/webhooks.js';
import { emit } from '../telemetry/events.js';
import { inSpan, type TraceSpan, tracing } from '../telemetry/tracing.js';
import type { Resolver } from './guard.js';
import { DELIVER_KIND } from './outbox.js';
import { apiKeyContext, signingSecrets } from './secrets.js';
import { type AttemptOutcome, sendOnce } from './sender.js';
import { HEADER_MODE, signedHeaders } from './signing.js';

export interface DeliveryConfig {
  /** Delay before each attempt, first attempt first (`WEBHOOK_RETRY_SCHEDULE`). */
  scheduleMs: number[];
  timeoutMs: number;
  allowInsecure: boolean;
  /** `WEBHOOK_DISABLE_AFTER`: how long every attempt may fail before the endpoint is disabled. */
  disableAfterMs: number;
}

export interface DeliveryDeps {
  store: SystemStore;
  box: SecretBox;
  config: DeliveryConfig;
  /** The service's clock, for the final-failure hook (the attempt itself uses its context's). */
  clock: Clock;
  /** DNS for the connect-time guard; tests give a resolver that "rebinds". */
  resolve?: Resolver;
}

/** An attempt that did not get a 2xx: retried on the schedule. */
class DeliveryFailed extends ExpectedJobError {
  constructor(
    readonly reason: string,
    errorClass: string,
  ) {
    super(reason, errorClass);
  }
}

interface EventFields {
  submissionId: string | null;
  partnerSubmissionId: string | null;
}

function eventFields(eventBody: string): EventFields {
  const body = JSON.parse(eventBody) as { submissionId?: unknown; partnerSubmissionId?: unknown };
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return { submissionId: text(body.submissionId), partnerSubmissionId: text(body.partnerSubmissionId) };
}

/** How many attempts `simulate:webhook_failure` treats as unanswered (domain/mode.ts). */
const SIMULATED_UNANSWERED_ATTEMPTS = 2;

/**
 * The attempt as `simulate:webhook_failure` has it: sent as usual (the receiver sees it, and
 * can practise deduplicating on the event id), its answer disregarded as if none came in time.
 */
function simulatedTimeout(sent: AttemptOutcome): AttemptOutcome {
  return {
    ...sent,
    ok: false,
    statusCode: null,
    errorClass: 'timeout',
    reason: `No answer in time (simulated: the test submission's partnerSubmissionId starts with "${SIMULATIONS.webhookFailure}").`,
  };
}

function eventIdOf(job: ClaimedJob): string {
  const id = job.payload?.eventId;
  if (typeof id !== 'string') throw new PermanentJobError('This delivery has no event to send.');
  return id;
}

/**
 * `webhook.deliver`: one POST per attempt, signed at send time with the secret in effect then,
 * a new delivery id each time, the attempt logged whatever its outcome. A 2xx completes the job
 * and marks the event delivered; anything else fails the attempt, and the queue retries it
 * after the schedule's next delay, in this process or another, after restarts too.
 */
export function registerWebhookJobs(kinds: JobKinds, deps: DeliveryDeps): JobKinds {
  return kinds.register(DELIVER_KIND, deliveryJob(deps));
}

/** The attempt's outcome for the metrics and its span. */
function attemptTelemetry(
  outcome: AttemptOutcome,
  mode: ApiMode,
  eventCreatedAt: string,
  now: Date,
  span: TraceSpan,
): void {
  const word = outcome.ok ? 'delivered' : (outcome.errorClass ?? 'http_status');
  emit('webhook.attempt', {
    outcome: word,
    mode,
    seconds: outcome.latencyMs / 1000,
    deliveredAfterSeconds: outcome.ok ? Math.max(0, now.getTime() - Date.parse(eventCreatedAt)) / 1000 : null,
  });
  span.setAttributes({
    'healthspan.webhook.outcome': word,
    'healthspan.webhook.status_code': outcome.statusCode ?? undefined,
  });
  if (!outcome.ok) span.fail(word);
}

/** What one attempt is about, as found in the store when it starts. */
interface Target {
  eventId: string;
  event: EventRecord;
  endpoint: EndpointRecord;
  /** The submission the event names. */
  fields: EventFields;
  /** The secret in effect at `now`, and those that will be (signed with too). */
  signing: { secret: string; upcoming: string[] };
  /** When the attempt was signed and started. */
  now: Date;
}

/** One attempt's request: a new delivery id each time, the body as stored. */
interface SignedRequest {
  deliveryId: string;
  body: Buffer;
  headers: Record<string, string>;
}

/** An event whose endpoint is disabled: held, not attempted. */
interface Held {
  held: true;
  eventId: string;
}

/**
 * Look up: the event, its partner's callback and the signing secrets in effect now; or, while
 * the callback is disabled, that the event is held.
 */
async function lookUp(deps: DeliveryDeps, job: ClaimedJob, clock: Clock): Promise<Target | Held> {
  const { store, box } = deps;
  const db = store.db;
  const eventId = eventIdOf(job);
  const event = await store.webhooks.event(db, eventId);
  if (!event) throw new PermanentJobError('The event to deliver no longer exists.');
  // Delivery jobs are not attached to a submission (decisions.md); the event names it, and
  // the attempt's lines carry it like the rest of that submission's.
  const fields = eventFields(event.body);
  addToContext({ submissionId: fields.submissionId ?? undefined });
  const endpoint = await store.webhooks.endpoint(db, event.partnerId);
  if (!endpoint) throw new PermanentJobError('No callback URL is registered for this partner any more.');
  if (await store.endpointHealth.isDisabled(db, event.partnerId)) return { held: true, eventId };
  const now = clock();
  const signing = signingSecrets(
    box,
    event.partnerId,
    await store.webhooks.secrets(db, event.partnerId),
    now,
  );
  if (!signing) throw new PermanentJobError('This partner has no signing secret in effect.');
  return { eventId, event, endpoint, fields, signing, now };
}

/** Sign: the Standard Webhooks headers, the test-mode header and the receiver's own key. */
function sign(target: Target, box: SecretBox): SignedRequest {
  const { eventId, event, endpoint, signing, now } = target;
  const deliveryId = randomUUID();
  const body = Buffer.from(event.body, 'utf8');
  const headers = signedHeaders({
    secret: signing.secret,
    alsoSignWith: signing.upcoming,
    eventId,
    deliveryId,
    timestamp: Math.floor(now.getTime() / 1000),
    rawBody: body,
  });
  if (endpoint.mode === 'test') headers[HEADER_MODE] = 'test';
  if (endpoint.apiKeySealed) {
    headers[endpoint.apiKeyHeader ?? 'X-Api-Key'] = box.open(
      endpoint.apiKeySealed,
      apiKeyContext(event.partnerId),
    );
  }
  return { deliveryId, body, headers };
}

/** Send: one POST in its span, its outcome counted; a simulated failure disregards the answer. */
async function send(
  deps: DeliveryDeps,
  target: Target,
  request: SignedRequest,
  job: ClaimedJob,
  clock: Clock,
): Promise<AttemptOutcome> {
  const { endpoint, event, fields } = target;
  const unanswered =
    simulationOf(endpoint.mode, fields.partnerSubmissionId) === 'webhookFailure' &&
    job.attempt <= SIMULATED_UNANSWERED_ATTEMPTS;
  return inSpan('webhook.attempt', { kind: 'client' }, async (span) => {
    // The receiver can continue this submission's trace (W3C Trace Context).
    const traceparent = tracing().traceparent();
    if (traceparent) request.headers.traceparent = traceparent;
    const answered = await sendOnce(endpoint.url, request.headers, request.body, {
      timeoutMs: deps.config.timeoutMs,
      allowInsecure: deps.config.allowInsecure,
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
    });
    const sent = unanswered ? simulatedTimeout(answered) : answered;
    attemptTelemetry(sent, endpoint.mode, event.createdAt, clock(), span);
    return sent;
  });
}

/** An attempt that was sent, with what `record` needs to log it and schedule what follows. */
interface SentAttempt {
  job: ClaimedJob;
  ctx: HandlerContext;
  target: Target;
  request: SignedRequest;
  outcome: AttemptOutcome;
}

/**
 * Record: the attempt in the attempt log and a line in the job's log. A failure throws, so the
 * queue retries after `delayAfter`; a delivery returns the writes that complete the job.
 */
async function record(
  deps: DeliveryDeps,
  sent: SentAttempt,
  delayAfter: (attempt: number) => number,
): Promise<Completion> {
  const { store } = deps;
  const { job, ctx, target, request, outcome } = sent;
  const { eventId, event, endpoint } = target;
  const attempt: AttemptRecord = {
    deliveryId: request.deliveryId,
    eventId,
    partnerId: event.partnerId,
    attempt: job.attempt,
    url: endpoint.url,
    startedAt: target.now.toISOString(),
    latencyMs: outcome.latencyMs,
    statusCode: outcome.statusCode,
    errorClass: outcome.errorClass,
    outcome: outcome.ok ? 'delivered' : 'failed',
    responseSnippet: outcome.snippet,
  };
  // A failed attempt is recorded in its own commit, before the retry is scheduled. A
  // delivered one is recorded in the commit that completes the job (urgent, see
  // commitsUrgently): one commit after the receiver's 2xx, not two, so a crash in between
  // rarely leaves a delivery unrecorded and sent again.
  // The attempt (and, when it disabled the endpoint, its disabling) is the failure's own commit.
  const disabled = outcome.ok ? undefined : await recordFailure(deps, job, attempt, target.now);
  // The context's logger adds the job's ids and the submission.
  const line = {
    eventId,
    deliveryId: request.deliveryId,
    resultId: event.resultId,
    statusCode: outcome.statusCode,
    latencyMs: outcome.latencyMs,
  };
  if (outcome.ok) ctx.log.info(line, 'webhook delivered');
  else if (disabled) {
    // No retry: the event waits, held, for the endpoint to be enabled and a recovery to send it.
    ctx.log.warn(
      {
        ...line,
        errorClass: outcome.errorClass,
        partnerId: disabled.partnerId,
        failingSince: disabled.failingSince,
      },
      'webhook endpoint disabled: every delivery attempt failed for WEBHOOK_DISABLE_AFTER; its events are held',
    );
    return holdEvent(store, eventId, ctx.clock);
  } else {
    const last = job.attempt >= job.maxAttempts;
    const next = new Date(ctx.clock().getTime() + delayAfter(job.attempt));
    ctx.log.warn(
      { ...line, errorClass: outcome.errorClass, nextAttemptAt: last ? null : next.toISOString() },
      last ? 'webhook attempt failed; no attempts left' : 'webhook attempt failed; will retry',
    );
    throw new DeliveryFailed(
      outcome.reason ?? 'The callback could not be delivered.',
      outcome.errorClass ?? 'http_status',
    );
  }
  // Commit unit (it may run twice): the attempt was built before; both writes go through `trx`.
  return async (trx) => {
    await store.webhooks.recordAttempt(trx, attempt);
    await store.webhooks.setEventStatus(trx, eventId, 'delivered', ctx.clock());
    await store.endpointHealth.delivered(trx, event.partnerId);
  };
}

/**
 * A failed attempt's commit: the attempt, the endpoint's failure clock, and, when this attempt
 * disabled the endpoint, the audit event of that (the service's own action).
 */
function recordFailure(
  deps: DeliveryDeps,
  job: ClaimedJob,
  attempt: AttemptRecord,
  now: Date,
): Promise<DisabledEndpoint | undefined> {
  const { store, config } = deps;
  // Commit unit: the attempt was built before; the clock and the disabling are decided from the
  // endpoint read in `trx`.
  return store.batcher.submit(async (trx) => {
    await store.webhooks.recordAttempt(trx, attempt);
    const disabled = await store.endpointHealth.failed(trx, attempt.partnerId, now, config.disableAfterMs);
    if (disabled) {
      await store.audit.record(
        trx,
        disabled.tenantId,
        {
          action: 'webhook.endpoint_disabled',
          resourceType: 'webhook_endpoint',
          resourceId: disabled.partnerId,
        },
        { actor: { type: 'system' }, requestId: job.requestId ?? job.id, correlationId: job.correlationId },
        now,
      );
    }
    return disabled;
  });
}

/** The job completes without an attempt; its event is held until a recovery sends it. */
function holdEvent(store: SystemStore, eventId: string, clock: Clock): Completion {
  // Commit unit (it may run twice): one update through `trx`.
  return async (trx) => {
    await store.webhooks.setEventStatus(trx, eventId, 'endpoint_disabled', clock());
  };
}

/** One attempt: look up → sign → send → record. */
function deliveryJob(deps: DeliveryDeps): JobDefinition {
  const { store, box, config } = deps;
  // Entry 0 is the delay before the first attempt; after attempt n comes entry n.
  const delayAfter = (attempt: number): number =>
    config.scheduleMs[Math.min(attempt, config.scheduleMs.length - 1)] ?? 0;
  return {
    async run(job, ctx) {
      const target = await lookUp(deps, job, ctx.clock);
      if ('held' in target) {
        ctx.log.info({ eventId: target.eventId }, 'webhook held: the endpoint is disabled');
        return holdEvent(store, target.eventId, ctx.clock);
      }
      const request = sign(target, box);
      const outcome = await send(deps, target, request, job, ctx.clock);
      return record(deps, { job, ctx, target, request, outcome }, delayAfter);
    },
    commitsUrgently: true,
    retryDelayMs: delayAfter,
    async onFailed(trx, job) {
      const eventId = job.payload?.eventId;
      if (typeof eventId === 'string')
        await store.webhooks.setEventStatus(trx, eventId, 'failed', deps.clock(), 'attempts_exhausted');
    },
    summarize(error) {
      return error instanceof DeliveryFailed ? error.reason : 'The callback could not be delivered.';
    },
  };
}
