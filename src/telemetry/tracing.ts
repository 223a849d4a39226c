import { NOOP_SPAN, type SpanOptions, type TraceSpan, type Tracing } from './span-api.js';

export type { SpanAttributes, SpanKindName, SpanOptions, TraceSpan, Tracing } from './span-api.js';
export { ALLOWED_SPAN_ATTRIBUTES, allowedAttributes, NOOP_SPAN } from './span-api.js';

/**
 * Tracing as the service's code sees it: a small facade that is a no-op until `startTracing`
 * loads OpenTelemetry (only when OTEL_EXPORTER_OTLP_ENDPOINT is set, `otel.ts`). Call sites on
 * hot paths check `enabled` first, so with tracing off they cost one property read and nothing
 * of OpenTelemetry is imported. The active span follows the work through async calls, as the
 * work context does (`context.ts`).
 */

const NOOP: Tracing = {
  enabled: false,
  start: () => NOOP_SPAN,
  within: (_span, fn) => fn(),
  traceparent: () => undefined,
  capture: () => undefined,
  restore: (_captured, fn) => fn(),
  shutdown: async () => {},
};

let current: Tracing = NOOP;
let users = 0;

/** The process's tracing: OpenTelemetry once started, else the no-op. */
export function tracing(): Tracing {
  return current;
}

/**
 * Loads OpenTelemetry and makes it the process's tracing (OpenTelemetry's provider is global).
 * Every service started in the process shares it; the last one stopped shuts it down.
 */
export async function startTracing(options: {
  serviceVersion: string;
  role: string;
}): Promise<() => Promise<void>> {
  if (!current.enabled) {
    const { openTelemetryTracing } = await import('./otel.js');
    current = openTelemetryTracing(options);
  }
  users++;
  let stopped = false;
  return async () => {
    if (stopped) return;
    stopped = true;
    users--;
    if (users > 0) return;
    const t = current;
    current = NOOP;
    await t.shutdown();
  };
}

/** Runs `fn` in a span of its own (when tracing is on), failing the span when `fn` throws. */
export async function inSpan<T>(
  name: string,
  options: SpanOptions,
  fn: (span: TraceSpan) => Promise<T>,
): Promise<T> {
  const t = current;
  if (!t.enabled) return fn(NOOP_SPAN);
  const span = t.start(name, options);
  try {
    return await t.within(span, () => fn(span));
  } catch (error) {
    span.fail(error);
    throw error;
  } finally {
    span.end();
  }
}
