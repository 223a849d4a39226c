import createFetchClient from 'openapi-fetch';
import { errorFrom, errorFromResponse, HealthspanError, networkError } from './errors.js';
import { eventOperations, type Recovery } from './events.js';
import type { components, paths } from './generated/openapi.js';
import { type RetryOptions, withRetries } from './retry.js';
import { submissionListing } from './submission-list.js';
import { webhookEndpointClient } from './webhook-endpoint.js';
import { parseResultReadyEvent, type ResultReadyEvent, verifyWebhook } from './webhooks.js';

export { HealthspanError } from './errors.js';
export type {
  EventAttempt,
  EventDetail,
  EventFilters,
  EventListItem,
  EventListQuery,
  EventPage,
  RecoverWindow,
  Recovery,
  RecoveryStarted,
  RedeliveryAccepted,
} from './events.js';
export type { components, paths } from './generated/openapi.js';
export { type ForwardOutcome, type ListenDelivery, type ListenOptions, listen } from './listen.js';
export type { RetryOptions } from './retry.js';
export type {
  SubmissionFilters,
  SubmissionListItem,
  SubmissionListQuery,
  SubmissionPage,
} from './submission-list.js';
export type {
  WebhookEndpoint,
  WebhookEndpointPut,
  WebhookEndpointSet,
  WebhookSecretRotated,
} from './webhook-endpoint.js';
export {
  DEFAULT_TOLERANCE_SECONDS,
  parseResultReadyEvent,
  type ResultReadyEvent,
  type VerifyOptions,
  type VerifyResult,
  verifyWebhook,
} from './webhooks.js';

type Schemas = components['schemas'];
export type SubmissionRequest = Schemas['SubmissionRequest'];
export type AcceptedSubmission = Schemas['AcceptedSubmission'];
export type SubmissionDetail = Schemas['SubmissionDetail'];
export type Result = Schemas['Result'];
export type Artifact = Schemas['Artifact'];
export type TestEventSent = Schemas['TestEventSent'];
export type FhirBundle = Schemas['FhirBundle'];

export interface ClientOptions {
  /** The service, for example `https://api.healthspan.example` (no trailing path). */
  baseUrl: string;
  /** Your API key (`hs_live_…` or `hs_test_…`), sent as `X-Api-Key`. */
  apiKey: string;
  /** Retries of requests that are safe to repeat (reads, and creates with their idempotency key). */
  retry?: RetryOptions;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
}

export interface CreateOptions {
  /** One per logical submission; generated when not given, and reused on the client's retries. */
  idempotencyKey?: string;
  /** Your id for this submission across systems (`X-Correlation-Id`); the idempotency key if not given. */
  correlationId?: string;
}

export interface WaitOptions {
  /** Give up after this long (default 120 s): the submission goes on; only the waiting stops. */
  timeoutMs?: number;
  /** First wait between polls (default 500 ms); grows by half each poll up to `maxIntervalMs`. */
  intervalMs?: number;
  maxIntervalMs?: number;
}

export interface Download {
  bytes: Uint8Array;
  contentType: string;
  /** From `Content-Disposition`, when the service named the file. */
  fileName: string | undefined;
}

const FINAL = new Set(['completed', 'failed', 'rejected']);

/**
 * A client for the partner API. Every call returns the API's typed body or throws a
 * `HealthspanError` carrying the error envelope's `code`, `requestId` and `details`.
 */
export function createClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const api = createFetchClient<paths>({
    baseUrl,
    headers: { 'x-api-key': options.apiKey },
    fetch: (request: Request) => fetchImpl(request),
  });

  /** One attempt: the body of a 2xx, or a typed error (a network failure is status 0). */
  async function call<T>(send: () => Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    let outcome: { data?: T; error?: unknown; response: Response };
    try {
      outcome = await send();
    } catch (error) {
      throw networkError(error);
    }
    // openapi-fetch has read the body: the envelope is `error`.
    if (!outcome.response.ok) throw errorFrom(outcome.response, outcome.error);
    return outcome.data as T;
  }

  const submissions = {
    ...submissionListing((query) =>
      withRetries(() => call(() => api.GET('/v1/submissions', { params: { query } })), options.retry),
    ),

    /**
     * Submits one person's data: `202` once it is durably stored. Retried on network errors,
     * 429 and 5xx with the same idempotency key, so a retry never creates a second submission.
     */
    create(body: SubmissionRequest, opts: CreateOptions = {}): Promise<AcceptedSubmission> {
      const idempotencyKey = opts.idempotencyKey ?? globalThis.crypto.randomUUID();
      const correlationId = opts.correlationId ?? idempotencyKey;
      return withRetries(
        () =>
          call(() =>
            api.POST('/v1/submissions', {
              body,
              params: { header: { 'idempotency-key': idempotencyKey, 'x-correlation-id': correlationId } },
            }),
          ),
        options.retry,
      );
    },

    get(submissionId: string): Promise<SubmissionDetail> {
      return withRetries(
        () => call(() => api.GET('/v1/submissions/{submissionId}', { params: { path: { submissionId } } })),
        options.retry,
      );
    },

    /**
     * Polls until the submission is `completed`, `failed` or `rejected`, backing off between
     * polls; throws `HealthspanError` with code `TIMEOUT` if that takes longer than `timeoutMs`.
     */
    async waitForCompletion(submissionId: string, opts: WaitOptions = {}): Promise<SubmissionDetail> {
      const deadline = Date.now() + (opts.timeoutMs ?? 120_000);
      let interval = opts.intervalMs ?? 500;
      for (;;) {
        const detail = await submissions.get(submissionId);
        if (FINAL.has(detail.status)) return detail;
        if (Date.now() + interval > deadline) {
          throw new HealthspanError(
            `Submission ${submissionId} was still ${detail.status} when the wait ran out.`,
            'TIMEOUT',
            0,
            undefined,
            { status: detail.status },
          );
        }
        await new Promise((resolve) => setTimeout(resolve, interval));
        interval = Math.min(opts.maxIntervalMs ?? 5000, Math.round(interval * 1.5));
      }
    },
  };

  const results = {
    get(resultId: string): Promise<Result> {
      return withRetries(
        () => call(() => api.GET('/v1/results/{resultId}', { params: { path: { resultId } } })),
        options.retry,
      );
    },

    /** The result as a FHIR R4 Bundle (`application/fhir+json`), for a record system. */
    fhir(resultId: string): Promise<FhirBundle> {
      return withRetries(
        () => call(() => api.GET('/v1/results/{resultId}/fhir', { params: { path: { resultId } } })),
        options.retry,
      );
    },
  };

  const artifacts = {
    /**
     * Downloads a report through its signed link (from `results.get`, valid for a while; read
     * the result again for a fresh one). Takes the artifact or its `downloadUrl`.
     */
    download(artifact: Artifact | string): Promise<Download> {
      const url = typeof artifact === 'string' ? artifact : artifact.access?.downloadUrl;
      if (!url) {
        return Promise.reject(
          new HealthspanError(
            'This report has no download link (not available).',
            'NOT_AVAILABLE',
            0,
            undefined,
            {
              availability: typeof artifact === 'string' ? undefined : artifact.availability,
            },
          ),
        );
      }
      return withRetries(async () => {
        let response: Response;
        try {
          response = await fetchImpl(url);
        } catch (error) {
          throw networkError(error);
        }
        if (!response.ok) throw await errorFromResponse(response);
        const disposition = response.headers.get('content-disposition') ?? '';
        return {
          bytes: new Uint8Array(await response.arrayBuffer()),
          contentType: response.headers.get('content-type') ?? 'application/octet-stream',
          fileName: /filename="([^"]+)"/.exec(disposition)?.[1],
        };
      }, options.retry);
    },
  };

  const webhooks = {
    verify: verifyWebhook,
    parse: (rawBody: Uint8Array | string): ResultReadyEvent => parseResultReadyEvent(rawBody),
  };

  const testEvents = {
    /**
     * Test keys only: sends the `result.ready` event of a completed test result (the newest
     * when none is named) to your test callback now. Safe to retry: the event keeps its id.
     */
    send(opts: { resultId?: string } = {}): Promise<TestEventSent> {
      const body = { type: 'result.ready' as const, ...(opts.resultId ? { resultId: opts.resultId } : {}) };
      return withRetries(() => call(() => api.POST('/v1/test/events', { body })), options.retry);
    },
  };

  const webhookEndpoint = webhookEndpointClient(api, call, (attempt) => withRetries(attempt, options.retry));

  const retried = <T>(send: () => Promise<{ data?: T; error?: unknown; response: Response }>) =>
    withRetries(() => call(send), options.retry);

  const events = eventOperations({
    list: (query) => retried(() => api.GET('/v1/events', { params: { query } })),
    get: (eventId) => retried(() => api.GET('/v1/events/{eventId}', { params: { path: { eventId } } })),
    redeliver: (eventId) =>
      retried(() => api.POST('/v1/events/{eventId}/redeliver', { params: { path: { eventId } }, body: {} })),
    recover: (body) => retried(() => api.POST('/v1/events/recover', { body })),
  });

  const recoveries = {
    /** How many of the recovery's events are pending, delivered, failed again or held. */
    get: (recoveryId: string): Promise<Recovery> =>
      retried(() => api.GET('/v1/recoveries/{recoveryId}', { params: { path: { recoveryId } } })),
  };

  return { submissions, results, artifacts, webhooks, testEvents, webhookEndpoint, events, recoveries };
}

export type HealthspanClient = ReturnType<typeof createClient>;
