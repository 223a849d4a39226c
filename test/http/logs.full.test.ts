import { describe, expect, it } from 'vitest';
import { alterStoredBytes } from '../helpers/artifact-bytes.js';
import { cliFor } from '../helpers/cli.js';
import { SkewedClock } from '../helpers/clock.js';
import { waitUntil } from '../helpers/pipeline.js';
import { TestReceiver } from '../helpers/receiver.js';
import { bodyFor, createAccount, postSubmission, startTestService } from '../helpers/service.js';

/** Logs an operator can read (issue 13): what a line carries, and what it never carries. */
function lines(logs: string[]): Array<Record<string, unknown>> {
  return logs.flatMap((chunk) =>
    chunk
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>),
  );
}

describe('log lines', () => {
  it('say at start what runs, name each request’s error code and submission, and say when stopped', async () => {
    const service = await startTestService({
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_SECRETS_KEY: 'k'.repeat(40),
      DOWNLOAD_SIGNING_SECRET: 's'.repeat(40),
      REDIS_URL: 'redis://user:redis-password@127.0.0.1:6379',
      CORS_ALLOWED_ORIGINS: 'https://app.example.com',
    });
    const account = await createAccount(service);
    const body = bodyFor(account);
    const first = await postSubmission(service, body, { apiKey: account.apiKey, idempotencyKey: 'log-1' });
    await postSubmission(service, body, { apiKey: account.apiKey, idempotencyKey: 'log-1' });
    await postSubmission(service, { ...body, partnerSubjectId: '' }, { apiKey: account.apiKey });
    await fetch(`${service.url}/v1/partner-auth-probe`, { headers: { 'x-api-key': 'hs_live_wrong' } });
    await service.stop();

    const all = lines(service.logs);
    const start = all.find((l) => l.msg === 'healthspan listening');
    expect(start).toMatchObject({
      role: 'all',
      worker: { concurrency: expect.any(Number) },
      limits: { ratePerMinute: 'off', shared: 'redis://127.0.0.1:6379' },
      cors: ['https://app.example.com'],
    });
    const text = service.logs.join('');
    for (const secret of ['k'.repeat(40), 's'.repeat(40), 'redis-password', account.apiKey]) {
      expect(text).not.toContain(secret);
    }

    const posts = all.filter((l) => l.msg === 'request' && l.route === '/v1/submissions');
    expect(posts.map((l) => [l.status, l.submissionId, l.replayed, l.errorCode])).toEqual([
      [202, first.json.submissionId, false, undefined],
      [202, first.json.submissionId, true, undefined],
      [400, undefined, undefined, 'VALIDATION_ERROR'],
    ]);
    const probe = all.find((l) => l.msg === 'request' && l.route === '/v1/partner-auth-probe');
    expect(probe).toMatchObject({ status: 401, errorCode: 'INVALID_API_KEY' });
    expect(all.at(-1)).toMatchObject({ msg: 'healthspan stopped', role: 'all' });
  });
});

describe('job and callback log lines', () => {
  it('name each job’s type, submission and account, and warn of a failed callback with its class and next attempt, without a stack', async () => {
    const receiver = new TestReceiver();
    const url = await receiver.start();
    receiver.replies = [503];
    // The retry is due two seconds after the failure on the service's clock, which the test moves
    // once the failure is recorded instead of waiting for them to pass.
    const clock = new SkewedClock();
    const service = await startTestService(
      { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_RETRY_SCHEDULE: '0s,2s,2s' },
      'all',
      { clock: clock.date },
    );
    try {
      const account = await createAccount(service);
      const set = await cliFor(service, ['webhooks', 'set', '--partner', account.partnerId, '--url', url]);
      expect(set.code, set.stderr).toBe(0);
      const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
      expect(res.status).toBe(202);
      const submissionId = res.json.submissionId as string;
      await waitUntil(
        async () =>
          lines(service.logs).some(
            (l) => l.msg === 'job failed; will retry' && l.jobType === 'webhook.deliver',
          ),
        60_000,
        'the first attempt to fail',
      );
      clock.advance(2_000);
      await waitUntil(
        async () =>
          lines(service.logs).some((l) => l.msg === 'job completed' && l.jobType === 'webhook.deliver'),
        60_000,
        'the second attempt to be delivered',
      );

      const all = lines(service.logs);
      const jobs = all.filter((l) => l.msg === 'job completed');
      expect(jobs.map((l) => l.jobType)).toEqual([
        'pipeline.ingest_validate',
        'pipeline.score',
        'pipeline.render_reports',
        'webhook.deliver',
      ]);
      for (const line of jobs) {
        expect(line).toMatchObject({ tenantId: account.tenantId, jobId: expect.any(String) });
        // Deliveries are not attached to a submission; their own lines name it (below).
        if (line.jobType !== 'webhook.deliver') expect(line.submissionId).toBe(submissionId);
      }
      const delivered = all.find((l) => l.msg === 'webhook delivered');
      expect(delivered).toMatchObject({
        level: 'info',
        submissionId,
        tenantId: account.tenantId,
        attempt: 2,
      });

      const failed = all.find((l) => l.msg === 'webhook attempt failed; will retry');
      expect(failed).toMatchObject({
        level: 'warn',
        submissionId,
        tenantId: account.tenantId,
        attempt: 1,
        statusCode: 503,
        errorClass: 'http_status',
      });
      const next = Date.parse(failed?.nextAttemptAt as string);
      const at = Date.parse(failed?.time as string);
      // The schedule's second entry (2 s) after the failure, give or take the line's own timing.
      expect(next - at).toBeGreaterThan(1_000);
      expect(next - at).toBeLessThan(3_000);
      const retry = all.find((l) => l.msg === 'job failed; will retry' && l.jobType === 'webhook.deliver');
      expect(retry).toMatchObject({ level: 'warn', errorClass: 'http_status', tenantId: account.tenantId });
      for (const line of [failed, retry]) {
        expect(line).not.toHaveProperty('err');
        expect(JSON.stringify(line)).not.toMatch(/\bat .+:\d+:\d+/);
      }
    } finally {
      await service.stop();
      await receiver.stop();
    }
  });
});

describe('one submission’s lines', () => {
  it('carry the ids of the request that sent it, from its access line to its callback attempt', async () => {
    const receiver = new TestReceiver();
    const url = await receiver.start();
    const service = await startTestService({ WEBHOOK_ALLOW_INSECURE: 'true' });
    try {
      const account = await createAccount(service);
      const set = await cliFor(service, ['webhooks', 'set', '--partner', account.partnerId, '--url', url]);
      expect(set.code, set.stderr).toBe(0);
      const res = await postSubmission(service, bodyFor(account), {
        apiKey: account.apiKey,
        correlationId: 'corr-joined',
        headers: { 'x-request-id': 'req-joined-1' },
      });
      expect(res.status).toBe(202);
      const submissionId = res.json.submissionId as string;
      // The delivery job's own line comes last, after the commit that records the delivery.
      await waitUntil(
        async () =>
          lines(service.logs).some((l) => l.msg === 'job completed' && l.jobType === 'webhook.deliver'),
        60_000,
        'the callback to be delivered and its job completed',
      );

      const mine = lines(service.logs).filter((l) => l.submissionId === submissionId);
      // The request, each job of the pipeline, the delivery job and its attempt.
      expect(mine.map((l) => l.msg)).toEqual(
        expect.arrayContaining(['request', 'job completed', 'webhook delivered']),
      );
      expect(mine.filter((l) => l.msg === 'job completed').map((l) => l.jobType)).toEqual([
        'pipeline.ingest_validate',
        'pipeline.score',
        'pipeline.render_reports',
        'webhook.deliver',
      ]);
      for (const line of mine) {
        expect(line, String(line.msg)).toMatchObject({
          requestId: 'req-joined-1',
          correlationId: 'corr-joined',
          tenantId: account.tenantId,
        });
      }
    } finally {
      await service.stop();
      await receiver.stop();
    }
  });
});

describe('lines written deep inside a request or a job', () => {
  it('carry the work’s ids from its context, though nobody passed them', async () => {
    const receiver = new TestReceiver();
    const url = await receiver.start();
    const service = await startTestService({ WEBHOOK_ALLOW_INSECURE: 'true' });
    try {
      const account = await createAccount(service);
      const set = await cliFor(service, ['webhooks', 'set', '--partner', account.partnerId, '--url', url]);
      expect(set.code, set.stderr).toBe(0);
      const res = await postSubmission(service, bodyFor(account), {
        apiKey: account.apiKey,
        correlationId: 'corr-deep',
        headers: { 'x-request-id': 'req-deep-1' },
      });
      expect(res.status).toBe(202);
      const submissionId = res.json.submissionId as string;
      await waitUntil(
        async () =>
          lines(service.logs).some((l) => l.msg === 'job completed' && l.jobType === 'webhook.deliver'),
        60_000,
        'the callback to be delivered',
      );

      // Inside a job: the delivery step logs its own fields only; the ids are its context's,
      // the submission among them once the step added it.
      const delivered = lines(service.logs).find((l) => l.msg === 'webhook delivered');
      expect(delivered).toMatchObject({
        requestId: 'req-deep-1',
        correlationId: 'corr-deep',
        tenantId: account.tenantId,
        submissionId,
        jobId: expect.any(String),
        jobType: 'webhook.deliver',
        attempt: 1,
      });

      // Inside a request: the artifact route notices altered bytes and says so from deep in its
      // handler, after the download link led it to the account. Its line carries that request's
      // ids, though the download names no key and sends none of them on the line.
      const detail = await fetch(`${service.url}/v1/submissions/${submissionId}`, {
        headers: { 'x-api-key': account.apiKey },
      });
      const resultId = ((await detail.json()) as { resultId: string }).resultId;
      const result = await fetch(`${service.url}/v1/results/${resultId}`, {
        headers: { 'x-api-key': account.apiKey },
      });
      const items = (
        (await result.json()) as {
          artifacts: { items: Array<{ artifactId: string; access: { downloadUrl: string } }> };
        }
      ).artifacts.items;
      const item = items[0]!;
      await alterStoredBytes(service, item.artifactId, Buffer.from('bytes-altered-by-the-test'));
      const link = new URL(item.access.downloadUrl);
      const download = await fetch(`${service.url}${link.pathname}${link.search}`, {
        headers: { 'x-request-id': 'req-deep-2', 'x-correlation-id': 'corr-deep-2' },
      });
      expect(download.status).toBe(200);
      const altered = lines(service.logs).find(
        (l) => l.msg === 'artifact bytes missing or altered; rendering them again',
      );
      expect(altered).toMatchObject({
        requestId: 'req-deep-2',
        correlationId: 'corr-deep-2',
        tenantId: account.tenantId,
        artifactId: item.artifactId,
      });

      // Outside any work (the service's own lines), none.
      const start = lines(service.logs).find((l) => l.msg === 'healthspan listening');
      expect(start).not.toHaveProperty('requestId');
      expect(start).not.toHaveProperty('tenantId');
      const text = service.logs.join('');
      expect(text).not.toContain(account.apiKey);
      expect(text).not.toContain('bytes-altered-by-the-test');
    } finally {
      await service.stop();
      await receiver.stop();
    }
  });
});
