import { errorFromResponse, HealthspanError, networkError } from './errors.js';
import { type ForwardOutcome, forward, type ListenDelivery } from './forward.js';
import { sseMessages } from './sse.js';

export type { ForwardOutcome, ListenDelivery } from './forward.js';

export interface ListenOptions {
  /** The service, e.g. `https://api.healthspan.example`. */
  baseUrl: string;
  /** A test key (`hs_test_…`); a live key is refused with `TEST_MODE_ONLY`. */
  apiKey: string;
  /** Your local receiver, e.g. `http://localhost:3000/webhooks`. */
  forwardTo: string;
  /** Called on every connection with the key's listen secret (the same each time). */
  onStarted?(info: { listenSecret: string }): void;
  /** Called after each event is forwarded, with what the receiver answered. */
  onForwarded?(outcome: ForwardOutcome): void;
  /**
   * Called when the stream dropped and is opened again after `delayMs`; `connected` is false
   * while no connection of this `listen` ever reached the service (a wrong base URL, a service
   * that is down), true once one did.
   */
  onReconnecting?(info: { delayMs: number; reason: string; connected: boolean }): void;
  /** Called when an answer could not be reported back (the forward itself happened). */
  onReportFailed?(info: { eventId: string; error: HealthspanError }): void;
  /** Stops listening; `listen` then resolves. */
  signal?: AbortSignal;
  /** How long the local receiver has to answer (default 10 s). */
  forwardTimeoutMs?: number;
  /** Longest wait between reconnects (default 10 s; the first is 250 ms, doubling). */
  maxReconnectDelayMs?: number;
}

/**
 * `healthspan listen`: holds the test events stream open, forwards each event to `forwardTo`
 * exactly as a real delivery (body and headers, signed with the key's listen secret), reports
 * the answer back (shown as a `listen` attempt of the event), and after a dropped connection
 * opens it again with `Last-Event-ID`, so no event is lost or forwarded twice. Resolves when
 * `signal` aborts; rejects on an answer that retrying cannot change (a bad or live key).
 */
export async function listen(options: ListenOptions): Promise<void> {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const target = new URL(options.forwardTo);
  const maxDelay = options.maxReconnectDelayMs ?? 10_000;
  const state: StreamState = { lastEventId: undefined, failures: 0, connected: false };
  while (!options.signal?.aborted) {
    let reason: string;
    try {
      await streamOnce(baseUrl, target, options, state);
      reason = 'the service closed the stream';
    } catch (error) {
      if (options.signal?.aborted) break;
      if (error instanceof HealthspanError && !error.retryable) throw error;
      reason = describe(error);
    }
    if (options.signal?.aborted) break;
    const delayMs = Math.min(maxDelay, 250 * 2 ** state.failures++);
    options.onReconnecting?.({ delayMs, reason, connected: state.connected });
    await sleep(delayMs, options.signal);
  }
}

interface StreamState {
  /** The id of the last event forwarded: where a new connection resumes. */
  lastEventId: string | undefined;
  /** Connections that failed in a row: the next wait doubles with each. */
  failures: number;
  /** Whether a connection ever reached the service and opened the stream. */
  connected: boolean;
}

/** One connection of the stream, until it ends or drops. */
async function streamOnce(
  baseUrl: string,
  target: URL,
  options: ListenOptions,
  state: StreamState,
): Promise<void> {
  // A failure to connect is thrown as it is (retried); its cause says why (`describe`).
  const res = await fetch(`${baseUrl}/v1/test/events/stream`, {
    headers: {
      'x-api-key': options.apiKey,
      accept: 'text/event-stream',
      ...(state.lastEventId ? { 'last-event-id': state.lastEventId } : {}),
    },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (!res.ok || !res.body) throw await errorFromResponse(res);
  state.failures = 0;
  state.connected = true;
  for await (const message of sseMessages(res.body as unknown as AsyncIterable<Uint8Array>)) {
    if (message.event === 'listen.started') {
      // Where the stream starts: resuming from it loses nothing even before a first event.
      state.lastEventId = message.id ?? state.lastEventId;
      options.onStarted?.(JSON.parse(message.data) as { listenSecret: string });
    } else if (message.event === 'result.ready') {
      const delivery = JSON.parse(message.data) as ListenDelivery;
      const outcome = await forward(target, delivery, options.forwardTimeoutMs ?? 10_000);
      options.onForwarded?.(outcome);
      await report(baseUrl, options, outcome);
      // Only once forwarded: a stream that drops mid-way resumes after the last event handled.
      state.lastEventId = message.id;
    }
  }
}

/** Reports the answer (`POST /v1/test/events/{eventId}/answers`); a failure is told, not thrown. */
async function report(baseUrl: string, options: ListenOptions, outcome: ForwardOutcome): Promise<void> {
  try {
    const res = await fetch(`${baseUrl}/v1/test/events/${encodeURIComponent(outcome.eventId)}/answers`, {
      method: 'POST',
      headers: { 'x-api-key': options.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        deliveryId: outcome.deliveryId,
        url: outcome.url,
        statusCode: outcome.statusCode,
        ...(outcome.error ? { error: outcome.error } : {}),
        durationMs: outcome.durationMs,
        body: outcome.body,
      }),
    });
    if (!res.ok) options.onReportFailed?.({ eventId: outcome.eventId, error: await errorFromResponse(res) });
  } catch (error) {
    options.onReportFailed?.({ eventId: outcome.eventId, error: networkError(error) });
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Why a connection failed, in a few words: fetch's own message says little without its cause. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'the connection failed';
  const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
  const detail =
    typeof cause?.code === 'string' ? cause.code : typeof cause?.message === 'string' ? cause.message : '';
  return detail ? `${error.message}: ${detail}` : error.message;
}
