import type { IncomingHttpHeaders } from 'node:http';

/**
 * What tracing is to the service's code (`tracing.ts` holds the no-op and the switch,
 * `otel.ts` the OpenTelemetry implementation), and the attributes a span may carry.
 */

export type SpanKindName = 'server' | 'client' | 'consumer' | 'producer' | 'internal';
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface SpanOptions {
  kind?: SpanKindName;
  attributes?: SpanAttributes;
  /**
   * Where the span hangs: the active span (unset), a stored W3C `traceparent` (a job's; a new
   * trace when it is null or malformed), or an incoming request's headers.
   */
  parent?: { traceparent: string | null | undefined } | { headers: IncomingHttpHeaders };
  /** Epoch milliseconds, for spans recorded after the fact (a render on another thread). */
  startTimeMs?: number;
  /** No span at all unless one is active: background work (idle polls) makes no traces of its own. */
  requireParent?: boolean;
}

export interface TraceSpan {
  setAttributes(attributes: SpanAttributes): void;
  /**
   * Marks the span failed, with the error's class name only (messages may quote data), or with
   * `type` when given a string (a word such as `timeout`).
   */
  fail(error: unknown): void;
  end(endTimeMs?: number): void;
}

/** The span of work nobody traces: every call does nothing. */
export const NOOP_SPAN: TraceSpan = { setAttributes() {}, fail() {}, end() {} };

export interface Tracing {
  readonly enabled: boolean;
  start(name: string, options?: SpanOptions): TraceSpan;
  /** Runs `fn` with `span` as the active span. */
  within<T>(span: TraceSpan, fn: () => T): T;
  /** The active span as a W3C `traceparent`, to store with a job or send with a callback. */
  traceparent(): string | undefined;
  /** The active trace context, opaque, to run later work in (`restore`). */
  capture(): unknown;
  restore<T>(captured: unknown, fn: () => T): T;
  /** Exports what is buffered and stops. */
  shutdown(): Promise<void>;
}

/**
 * The attributes a span may carry; every other is dropped before export (`otel.ts`), whoever
 * set it (our code or an instrumentation). Ids are the service's own; nothing a partner wrote
 * (correlation ids, subject references, bodies), no key, secret, URL query or SQL value.
 */
export const ALLOWED_SPAN_ATTRIBUTES: ReadonlySet<string> = new Set([
  'http.request.method',
  'http.route',
  'http.response.status_code',
  'url.scheme',
  'error.type',
  'healthspan.request.id',
  'healthspan.tenant.id',
  'healthspan.submission.id',
  'healthspan.job.id',
  'healthspan.job.type',
  'healthspan.job.attempt',
  'healthspan.report.type',
  'healthspan.webhook.outcome',
  'healthspan.webhook.status_code',
  'healthspan.batch.units',
  'healthspan.error.code',
  // The pg instrumentation's: the statement text carries $n placeholders, never the values
  // (enhancedDatabaseReporting stays off), and the connection's user and string are dropped.
  'db.system',
  'db.system.name',
  'db.name',
  'db.namespace',
  'db.operation',
  'db.operation.name',
  'db.statement',
  'db.query.text',
  'server.address',
  'server.port',
  'net.peer.name',
  'net.peer.port',
]);

/** Only the allowed attributes of `attributes`. */
export function allowedAttributes<V>(attributes: Readonly<Record<string, V>>): Record<string, V> {
  const out: Record<string, V> = {};
  for (const key of Object.keys(attributes)) {
    if (ALLOWED_SPAN_ATTRIBUTES.has(key)) out[key] = attributes[key] as V;
  }
  return out;
}
