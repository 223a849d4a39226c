import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount, errorOf, startTestService, type TestService } from '../helpers/service.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '5' });
});
afterAll(async () => {
  await service.stop();
});

describe('rate limiting', () => {
  it('limits per API key with RateLimit headers, then 429 RATE_LIMITED with Retry-After', async () => {
    const a = await createAccount(service);
    const b = await createAccount(service);
    const probe = (key: string) =>
      fetch(`${service.url}/v1/partner-auth-probe`, { headers: { 'x-api-key': key } });

    const first = await probe(a.apiKey);
    expect(first.status).toBe(204);
    expect(first.headers.get('ratelimit-limit')).toBe('5');
    expect(first.headers.get('ratelimit-remaining')).toBe('4');
    expect(Number(first.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    for (let i = 0; i < 4; i++) expect((await probe(a.apiKey)).status).toBe(204);

    const limited = await probe(a.apiKey);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(errorOf((await limited.json()) as Record<string, unknown>).code).toBe('RATE_LIMITED');

    // Another key has its own budget.
    expect((await probe(b.apiKey)).status).toBe(204);
  });

  it('does not limit the support endpoints', async () => {
    for (let i = 0; i < 8; i++) expect((await fetch(`${service.url}/health`)).status).toBe(200);
  });
});
