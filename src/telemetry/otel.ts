import { createRequire } from 'node:module';
import {
  type Context,
  context,
  defaultTextMapGetter,
  defaultTextMapSetter,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  type ExportResult,
  getNumberFromEnv,
  getStringFromEnv,
  W3CTraceContextPropagator,
} from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import {
  allowedAttributes,
  NOOP_SPAN,
  type SpanKindName,
  type SpanOptions,
  type TraceSpan,
  type Tracing,
} from './span-api.js';

/**
 * OpenTelemetry behind the `Tracing` facade, loaded only when tracing is on. Spans go to the
 * OTLP/HTTP exporter (OTEL_EXPORTER_OTLP_* variables) through a batch processor; every span's
 * attributes pass the allow-list on the way out, whoever set them; PostgreSQL queries become
 * spans through the pg instrumentation, under the span whose work ran them.
 */

const KINDS: Record<SpanKindName, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  consumer: SpanKind.CONSUMER,
  producer: SpanKind.PRODUCER,
  internal: SpanKind.INTERNAL,
};

class OtelSpan implements TraceSpan {
  constructor(readonly inner: Span) {}

  setAttributes(attributes: Record<string, string | number | boolean | undefined>): void {
    for (const [key, value] of Object.entries(attributes)) {
      if (value !== undefined) this.inner.setAttribute(key, value);
    }
  }

  fail(error: unknown): void {
    const type =
      typeof error === 'string' ? error : error instanceof Error ? error.constructor.name : 'Error';
    this.inner.setAttribute('error.type', type);
    this.inner.setStatus({ code: SpanStatusCode.ERROR });
  }

  end(endTimeMs?: number): void {
    this.inner.end(endTimeMs);
  }
}

/** Drops every attribute the allow-list does not name, on spans, their events and links. */
class AllowListExporter implements SpanExporter {
  constructor(private readonly inner: SpanExporter) {}

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans.map(scrubbed), done);
  }

  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

/** The span with only allowed attributes; everything else read through to the original. */
export function scrubbed(span: ReadableSpan): ReadableSpan {
  return Object.create(span, {
    attributes: { value: allowedAttributes(span.attributes) },
    events: {
      value: span.events.map((event) => ({
        ...event,
        attributes: event.attributes ? allowedAttributes(event.attributes) : undefined,
      })),
    },
    links: {
      value: span.links.map((link) => ({
        ...link,
        attributes: link.attributes ? allowedAttributes(link.attributes) : undefined,
      })),
    },
  }) as ReadableSpan;
}

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, as the specification names them. */
function samplerFromEnv(): Sampler {
  const ratio = () => {
    const arg = getNumberFromEnv('OTEL_TRACES_SAMPLER_ARG');
    return arg !== undefined && arg >= 0 && arg <= 1 ? arg : 1;
  };
  switch (getStringFromEnv('OTEL_TRACES_SAMPLER')) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio());
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio()) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

export function openTelemetryTracing(options: { serviceVersion: string; role: string }): Tracing {
  const resource = resourceFromAttributes({
    'service.name': 'healthspan',
    'service.version': options.serviceVersion,
    'healthspan.role': options.role,
  }).merge(detectResources({ detectors: [envDetector] }));
  const processor = new BatchSpanProcessor({
    exporter: new AllowListExporter(new OTLPTraceExporter()),
    ...optional('scheduledDelayMillis', getNumberFromEnv('OTEL_BSP_SCHEDULE_DELAY')),
    ...optional('maxQueueSize', getNumberFromEnv('OTEL_BSP_MAX_QUEUE_SIZE')),
    ...optional('maxExportBatchSize', getNumberFromEnv('OTEL_BSP_MAX_EXPORT_BATCH_SIZE')),
    ...optional('exportTimeoutMillis', getNumberFromEnv('OTEL_BSP_EXPORT_TIMEOUT')),
  });
  const provider = new TracerProvider({ resource, sampler: samplerFromEnv(), spanProcessors: [processor] });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(provider);
  const propagator = new W3CTraceContextPropagator();
  propagation.setGlobalPropagator(propagator);
  const pg = new PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false });
  pg.setTracerProvider(provider);
  pg.enable();
  // The instrumentation patches `pg` when it is required; the store imported it already, and
  // the patch changes the module's shared prototypes, so one require here reaches every client.
  createRequire(import.meta.url)('pg');
  const tracer = provider.getTracer('healthspan', options.serviceVersion);

  const parentContext = (parent: SpanOptions['parent']): Context => {
    if (parent === undefined) return context.active();
    if ('headers' in parent) return propagator.extract(ROOT_CONTEXT, parent.headers, defaultTextMapGetter);
    if (!parent.traceparent) return ROOT_CONTEXT;
    return propagator.extract(ROOT_CONTEXT, { traceparent: parent.traceparent }, defaultTextMapGetter);
  };

  return {
    enabled: true,
    start(name, o = {}) {
      if (o.requireParent && o.parent === undefined && trace.getSpan(context.active()) === undefined) {
        return NOOP_SPAN;
      }
      const span = tracer.startSpan(
        name,
        {
          kind: KINDS[o.kind ?? 'internal'],
          ...(o.startTimeMs !== undefined ? { startTime: o.startTimeMs } : {}),
        },
        parentContext(o.parent),
      );
      const wrapped = new OtelSpan(span);
      if (o.attributes) wrapped.setAttributes(o.attributes);
      return wrapped;
    },
    within(span, fn) {
      if (!(span instanceof OtelSpan)) return fn();
      return context.with(trace.setSpan(context.active(), span.inner), fn);
    },
    traceparent() {
      const carrier: Record<string, string> = {};
      propagator.inject(context.active(), carrier, defaultTextMapSetter);
      return carrier.traceparent;
    },
    capture: () => context.active(),
    restore(captured, fn) {
      return captured === undefined ? fn() : context.with(captured as Context, fn);
    },
    async shutdown() {
      pg.disable();
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

function optional<K extends string>(key: K, value: number | undefined): Partial<Record<K, number>> {
  return value === undefined ? {} : ({ [key]: value } as Record<K, number>);
}
