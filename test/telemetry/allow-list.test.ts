import { context, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { scrubbed } from '../../src/telemetry/otel.js';
import { ALLOWED_SPAN_ATTRIBUTES } from '../../src/telemetry/tracing.js';

/**
 * The attribute allow-list on a real SDK span: whatever an instrumentation or our code sets
 * (a connection string, a user, a partner's text, an exception message), only the listed
 * attributes reach the exporter.
 */
describe('span attribute allow-list', () => {
  it('drops every attribute it does not name, on the span and its events', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const span = provider.getTracer('test').startSpan('query', {}, context.active());
    span.setAttributes({
      'db.system': 'postgresql',
      'db.statement': 'select * from jobs where id = $1',
      'db.user': 'healthspan',
      'db.connection_string': 'postgresql://127.0.0.1:5432/healthspan',
      'healthspan.submission.id': '01a2-0000',
      'healthspan.correlation.id': 'partner free text',
      'http.request.header.x-api-key': 'hs_live_secret',
    });
    span.recordException(new Error('value (5.4) for subject subj-9f8e7d'));
    span.end();
    const [raw] = exporter.getFinishedSpans();
    const clean = scrubbed(raw!);
    expect(clean.attributes).toEqual({
      'db.system': 'postgresql',
      'db.statement': 'select * from jobs where id = $1',
      'healthspan.submission.id': '01a2-0000',
    });
    expect(clean.events).toHaveLength(1);
    expect(clean.events[0]!.name).toBe('exception');
    expect(clean.events[0]!.attributes).toEqual({});
    // Everything else still reads through to the span.
    expect(clean.name).toBe('query');
    expect(clean.spanContext().spanId).toBe(raw!.spanContext().spanId);
    expect(trace.getSpan(context.active())).toBeUndefined();
    await provider.shutdown();
  });

  it('names nothing a partner writes or a credential', () => {
    for (const key of ALLOWED_SPAN_ATTRIBUTES) {
      expect(key).not.toMatch(
        /correlation|subject|body|key|secret|password|user|connection_string|header|url\.full|query$/,
      );
    }
  });
});
