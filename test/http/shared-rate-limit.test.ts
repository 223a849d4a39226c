import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, startTestService, type TestService } from '../helpers/service.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Two API processes (two servers, one database) counting one key's requests in one Redis. */
describe('rate limits shared through Redis', () => {
  let a: TestService;
  let b: TestService;

  beforeAll(async () => {
    a = await startTestService({ RATE_LIMIT_PER_MINUTE: '5', REDIS_URL, WORKER_CONCURRENCY: '0' });
    b = await startTestService({
      RATE_LIMIT_PER_MINUTE: '5',
      REDIS_URL,
      WORKER_CONCURRENCY: '0',
      DATA_DIR: a.config.dataDir,
      ...(a.config.databaseUrl ? { DATABASE_URL: a.config.databaseUrl } : {}),
    });
  });
  afterAll(async () => {
    await b.stop();
    await a.stop();
  });

  it('counts a key across both API processes', async () => {
    expect(a.logs.some((l) => l.includes('Redis) unavailable'))).toBe(false);
    const account = await createAccount(a);
    const probe = (s: TestService) =>
      fetch(`${s.url}/v1/partner-auth-probe`, { headers: { 'x-api-key': account.apiKey } });
    const statuses = [];
    for (const s of [a, b, a, b, a]) statuses.push((await probe(s)).status);
    expect(statuses).toEqual([204, 204, 204, 204, 204]);
    const last = await probe(b);
    expect(last.headers.get('ratelimit-remaining')).toBe('0');
    expect(last.status).toBe(429);
    expect((await probe(a)).status).toBe(429);
  });
});

describe('rate limits when Redis does not answer', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({
      RATE_LIMIT_PER_MINUTE: '2',
      REDIS_URL: 'redis://127.0.0.1:1',
      WORKER_CONCURRENCY: '0',
    });
  });
  afterAll(async () => {
    await service.stop();
  });

  it('lets requests through and logs that it is not limiting', async () => {
    const account = await createAccount(service);
    for (let i = 0; i < 4; i++) {
      const res = await fetch(`${service.url}/v1/partner-auth-probe`, {
        headers: { 'x-api-key': account.apiKey },
      });
      expect(res.status).toBe(204);
    }
    expect(service.logs.some((l) => l.includes('Redis) unavailable; not limiting'))).toBe(true);
  });
});
