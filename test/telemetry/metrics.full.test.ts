import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_CATALOG } from '../../src/telemetry/catalog.js';
import { type Deployment, startDeployment } from '../helpers/deployment.js';
import { waitUntil } from '../helpers/pipeline.js';
import { freePort } from '../helpers/processes.js';
import { TestPrometheus } from '../helpers/prometheus.js';
import { exampleBody } from '../helpers/service.js';

/**
 * The metrics as an operator gets them: every process of a real deployment serves its own
 * `/metrics`, a real Prometheus scrapes them with the repository's alert rules loaded, and what
 * it holds after known traffic is asked through its query API.
 */
describe('Prometheus metrics', () => {
  let deployment: Deployment;
  let prometheus: TestPrometheus;
  const metricsUrls: string[] = [];
  const submissionIds: string[] = [];
  const SUBJECT = `metrics-subject-${process.pid}`;

  const post = (key: string | null, partnerSubmissionId: string) =>
    fetch(`${deployment.api.url}/v1/submissions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-key': deployment.apiKey,
        'x-correlation-id': 'metrics-test',
        ...(key === null ? {} : { 'idempotency-key': key }),
      },
      body: JSON.stringify({
        ...exampleBody(),
        partnerId: deployment.partnerId,
        partnerSubmissionId,
        partnerSubjectId: SUBJECT,
      }),
    });

  beforeAll(async () => {
    deployment = await startDeployment({}, async () => {
      const port = await freePort();
      metricsUrls.push(`http://127.0.0.1:${port}/metrics`);
      return { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' };
    });
    prometheus = await TestPrometheus.start(metricsUrls.map((u) => new URL(u).host));
    // Three accepted, one replay of the first, one refused at the door.
    for (const i of [1, 2, 3]) {
      const res = await post(`metrics-key-${i}`, `metrics-${i}`);
      expect(res.status).toBe(202);
      submissionIds.push(((await res.json()) as { submissionId: string }).submissionId);
    }
    expect((await post('metrics-key-1', 'metrics-1')).status).toBe(202);
    expect((await post(null, 'metrics-4')).status).toBe(400);
    await waitUntil(async () => deployment.receiver.deliveries.length >= 3, 60_000, 'three callbacks');
  }, 180_000);

  afterAll(async () => {
    await prometheus?.stop();
    await deployment?.stop();
  });

  it('scrapes every process: each up, ready, and saying its role and store', async () => {
    const roles = deployment.processes.map((p) => p.role).sort();
    await prometheus.valueOnce(`count(up{job="healthspan"} == 1)`, (v) => v === roles.length);
    await prometheus.valueOnce(`count(healthspan_ready == 1)`, (v) => v === roles.length);
    const info = await prometheus.query('healthspan_build_info');
    expect(info.map((s) => s.metric.role).sort()).toEqual(roles);
    expect(new Set(info.map((s) => s.metric.store))).toEqual(
      new Set([deployment.processes.length === 1 ? 'sqlite' : 'postgres']),
    );
  });

  it('counts the door’s verdicts and the HTTP requests by route template', async () => {
    await prometheus.valueOnce(`sum(healthspan_submissions_total{outcome="accepted"})`, (v) => v === 3);
    await prometheus.valueOnce(`sum(healthspan_submissions_total{outcome="replayed"})`, (v) => v === 1);
    await prometheus.valueOnce(
      `sum(healthspan_submissions_total{outcome="rejected",code="VALIDATION_ERROR"})`,
      (v) => v === 1,
    );
    await prometheus.valueOnce(
      `sum(healthspan_http_requests_total{method="POST",route="/v1/submissions",status="202"})`,
      (v) => v === 4,
    );
    await prometheus.valueOnce(
      `sum(healthspan_http_request_duration_seconds_count{method="POST",route="/v1/submissions"})`,
      (v) => v === 5,
    );
  });

  it('follows the pipeline: job durations, latency, renders, commits and callbacks', async () => {
    for (const type of ['pipeline.ingest_validate', 'pipeline.score', 'pipeline.render_reports']) {
      await prometheus.valueOnce(
        `sum(healthspan_job_duration_seconds_count{type="${type}",outcome="completed"})`,
        (v) => v === 3,
      );
    }
    await prometheus.valueOnce(`sum(healthspan_pipeline_latency_seconds_count)`, (v) => v === 3);
    await prometheus.valueOnce(`sum(healthspan_pipeline_latency_seconds_sum)`, (v) => v > 0);
    for (const type of ['json', 'html', 'pdf']) {
      await prometheus.valueOnce(
        `sum(healthspan_render_duration_seconds_count{type="${type}"})`,
        (v) => v === 3,
      );
    }
    await prometheus.valueOnce(`sum(healthspan_webhook_attempts_total{outcome="delivered"})`, (v) => v === 3);
    await prometheus.valueOnce(`sum(healthspan_webhook_delivery_latency_seconds_count)`, (v) => v === 3);
    await prometheus.valueOnce(`sum(healthspan_webhook_attempt_duration_seconds_count)`, (v) => v === 3);
    await prometheus.valueOnce(`sum(healthspan_db_commit_duration_seconds_count)`, (v) => v > 0);
    await prometheus.valueOnce(`sum(healthspan_db_commit_batch_size_sum)`, (v) => v > 0);
    await prometheus.valueOnce(`sum(healthspan_sla_breaches_total)`, (v) => v === 0);
    await prometheus.valueOnce(`sum(healthspan_job_rescues_total)`, (v) => v === 0);
  });

  it('reports the queue from the database, every type and state, drained to zero', async () => {
    const samples = await waitUntil(
      async () => {
        const s = await prometheus.query(`max by (type, state) (healthspan_jobs)`);
        return s.length === 25 && s.every((x) => x.value === 0) ? s : undefined;
      },
      30_000,
      'the queue gauge to show 5 types × 5 states, all zero',
    );
    expect(new Set(samples.map((s) => s.metric.state))).toEqual(
      new Set(['pending', 'running', 'retrying', 'held', 'failed']),
    );
    await prometheus.valueOnce(`max(healthspan_job_queue_age_seconds)`, (v) => v === 0);
  });

  it('loads the alert rules, and none fires on a healthy deployment', async () => {
    const alerts = await prometheus.alerts();
    expect(alerts.map((a) => a.name)).toEqual(
      expect.arrayContaining(['HealthspanNotReady', 'HealthspanQueueBacklog']),
    );
    // Before the first scrape nothing is known (an absent() alert may be pending): wait until
    // the rules have been evaluated on scraped data.
    await waitUntil(
      async () => (await prometheus.alerts()).every((a) => a.state === 'inactive'),
      30_000,
      'every alert to be inactive',
    );
  });

  it('serves an exposition promtool accepts, with bounded labels and no ids or secrets', async () => {
    for (const url of metricsUrls) {
      const text = await (await fetch(url)).text();
      // Throws (exit status 1) with promtool's findings when the exposition breaks its rules.
      execFileSync('promtool', ['check', 'metrics'], { input: text, stdio: ['pipe', 'pipe', 'pipe'] });
      for (const secret of [deployment.apiKey, deployment.partnerId, SUBJECT, ...submissionIds]) {
        expect(text).not.toContain(secret);
      }
      const routes = new Set([...text.matchAll(/route="([^"]*)"/g)].map((m) => m[1]));
      for (const route of routes) expect(route).toMatch(/^(\/[a-z0-9/:._-]*|unmatched)$/i);
      for (const { name } of Object.values(METRIC_CATALOG)) {
        expect(text, `${name} in ${url}`).toContain(`# TYPE ${name} `);
      }
      expect(text).toContain('nodejs_eventloop_lag_p99_seconds');
    }
  });

  it('answers only /metrics on the metrics port', async () => {
    const url = new URL(metricsUrls[0]!);
    expect((await fetch(`${url.origin}/v1/submissions`)).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
  });
});
