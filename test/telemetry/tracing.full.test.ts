import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALLOWED_SPAN_ATTRIBUTES } from '../../src/telemetry/tracing.js';
import { type Deployment, startDeployment } from '../helpers/deployment.js';
import { OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';
import { waitUntil } from '../helpers/pipeline.js';
import { exampleBody, testStoreKind } from '../helpers/service.js';

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;

/**
 * One submission's trace as a collector receives it: real processes export over OTLP/HTTP to a
 * loopback receiver; the trace starts from the partner's own `traceparent`, runs through the
 * request, its commit, every job (across processes on PostgreSQL) and the renders, and reaches
 * the callback receiver in the callback's `traceparent`.
 */
describe('OpenTelemetry traces', () => {
  const otlp = new OtlpReceiver();
  let deployment: Deployment;
  const traceId = randomBytes(16).toString('hex');
  const callerSpanId = randomBytes(8).toString('hex');
  const SUBJECT = `trace-subject-${randomBytes(6).toString('hex')}`;
  const CORRELATION = `trace-correlation-${randomBytes(6).toString('hex')}`;
  let submissionId: string;

  beforeAll(async () => {
    const endpoint = await otlp.start();
    deployment = await startDeployment({
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'healthspan-under-test',
    });
    const res = await fetch(`${deployment.api.url}/v1/submissions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': deployment.apiKey,
        'idempotency-key': `trace-${traceId}`,
        'x-correlation-id': CORRELATION,
        traceparent: `00-${traceId}-${callerSpanId}-01`,
      },
      body: JSON.stringify({ ...exampleBody(), partnerId: deployment.partnerId, partnerSubjectId: SUBJECT }),
    });
    expect(res.status).toBe(202);
    submissionId = ((await res.json()) as { submissionId: string }).submissionId;
    await waitUntil(async () => deployment.receiver.deliveries.length >= 1, 60_000, 'the callback');
    // Spans are exported in batches: wait for the callback attempt's own span and for its job's,
    // which ends after it (once the attempt is committed).
    await waitUntil(
      async () =>
        ['webhook.attempt', 'job webhook.deliver'].every((name) =>
          otlp.trace(traceId).some((s) => s.name === name),
        ),
      30_000,
      'the webhook attempt and delivery job spans',
    );
  }, 180_000);

  afterAll(async () => {
    await deployment?.stop();
    await otlp.stop();
  });

  const one = (name: string): ReceivedSpan => {
    const found = otlp.trace(traceId).filter((s) => s.name === name);
    expect(found, name).toHaveLength(1);
    return found[0]!;
  };

  it('continues the caller’s trace: request → ingest commit → each job in turn → callback', () => {
    const request = one('POST /v1/submissions');
    expect(request.parentSpanId).toBe(callerSpanId);
    expect(request.kind).toBe(SERVER);
    expect(request.attributes['http.route']).toBe('/v1/submissions');
    expect(request.attributes['http.response.status_code']).toBe(202);
    expect(request.attributes['healthspan.submission.id']).toBe(submissionId);

    const ingest = one('ingest.commit');
    expect(ingest.parentSpanId).toBe(request.spanId);

    const chain = [
      'job pipeline.ingest_validate',
      'job pipeline.score',
      'job pipeline.render_reports',
      'job webhook.deliver',
    ].map(one);
    let parent = ingest;
    for (const job of chain) {
      expect(job.kind, job.name).toBe(CONSUMER);
      expect(job.parentSpanId, `${job.name} under ${parent.name}`).toBe(parent.spanId);
      expect(job.attributes['healthspan.job.attempt']).toBe(1);
      parent = job;
    }
    const renderJob = chain[2]!;
    for (const type of ['json', 'html', 'pdf']) {
      const render = one(`render ${type}`);
      expect(render.parentSpanId).toBe(renderJob.spanId);
      expect(render.attributes['healthspan.report.type']).toBe(type);
    }

    const attempt = one('webhook.attempt');
    expect(attempt.kind).toBe(CLIENT);
    expect(attempt.parentSpanId).toBe(chain[3]!.spanId);
    expect(attempt.attributes['healthspan.webhook.outcome']).toBe('delivered');
    // The receiver got the attempt's own span as its parent.
    expect(deployment.receiver.deliveries[0]!.headers.traceparent).toBe(`00-${traceId}-${attempt.spanId}-01`);
  });

  it('shows the database work: commits on both stores, each PostgreSQL query under its unit', () => {
    const spans = otlp.trace(traceId);
    const ids = new Set(spans.map((s) => s.spanId));
    const commits = spans.filter((s) => s.name === 'db.commit');
    expect(commits.length).toBeGreaterThan(0);
    for (const c of commits) expect(ids.has(c.parentSpanId ?? ''), 'a commit inside the trace').toBe(true);
    const queries = spans.filter(
      (s) => s.attributes['db.system'] === 'postgresql' || s.attributes['db.system.name'] === 'postgresql',
    );
    if (testStoreKind() === 'postgres') {
      expect(queries.length).toBeGreaterThan(0);
      const ingest = one('ingest.commit');
      expect(queries.some((q) => q.parentSpanId === ingest.spanId)).toBe(true);
    } else {
      expect(queries).toEqual([]);
    }
  });

  it('names the processes: the service and its role on every span', () => {
    const roles = new Set(otlp.trace(traceId).map((s) => s.resource['healthspan.role']));
    expect(roles).toEqual(new Set(deployment.processes.map((p) => p.role)));
    for (const s of otlp.trace(traceId)) expect(s.resource['service.name']).toBe('healthspan-under-test');
  });

  it('exports only allowed attributes: no key, secret, partner text or health data leaves', () => {
    for (const s of otlp.spans) {
      for (const key of Object.keys(s.attributes)) expect(ALLOWED_SPAN_ATTRIBUTES.has(key), key).toBe(true);
    }
    const exported = otlp.bodies.join('\n');
    const example = exampleBody() as { markers: Array<{ value: number; code?: string }> };
    for (const secret of [deployment.apiKey, deployment.signingSecret, SUBJECT, CORRELATION, 'sub-000123']) {
      expect(exported).not.toContain(secret);
    }
    // The statement texts carry placeholders; the example's free text never appears.
    expect(JSON.stringify(example)).toContain('markers');
    expect(exported).not.toContain('"markers"');
  });
});
