import { describe, expect, it } from 'vitest';
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
