import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-keys.js';
import { envelopeOf, rawRequest } from '../helpers/raw-http.js';
import { createAccount, errorOf, startTestService, type TestService } from '../helpers/service.js';

/** Limits that once could be sidestepped (issue 12, defects 5, 6 and 8). */
let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    RATE_LIMIT_PER_MINUTE: '5',
    AUTH_FAILURES_PER_MINUTE: '10',
    CORS_ALLOWED_ORIGINS: 'https://app.example.com, https://admin.example.com:8443',
  });
});
afterAll(async () => {
  await service.stop();
});

const probeRequest = (target: string, apiKey: string) =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Api-Key: ${apiKey}\r\nConnection: close\r\n\r\n`;

describe('the rate limit, however the path is spelled', () => {
  it('counts percent-encoded and absolute-form targets against the same key', async () => {
    const account = await createAccount(service);
    for (let i = 0; i < 5; i++) {
      const ok = await rawRequest(service.url, probeRequest('/v1/partner-auth-probe', account.apiKey));
      expect(ok.response?.status).toBe(204);
    }
    // Each of these reached the probe route and was served past the limit before.
    for (const target of [
      '/v1/partner-auth-probe',
      '/%761/partner-auth-probe',
      '/v1/partner%2Dauth%2Dprobe',
      'http://127.0.0.1/v1/partner-auth-probe',
      '/v1/partner-auth-probe/',
    ]) {
      const limited = await rawRequest(service.url, probeRequest(target, account.apiKey));
      expect(limited.response?.status, target).toBe(429);
      expect(envelopeOf(limited.response)?.code).toBe('RATE_LIMITED');
    }
    const post = await rawRequest(
      service.url,
      `POST /%761/submissions HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${account.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    );
    expect(post.response?.status).toBe(429);
  });
});

describe('failed authentication per client address', () => {
  it('answers 429 with Retry-After after AUTH_FAILURES_PER_MINUTE wrong keys, while a working key goes on working', async () => {
    // A key that worked from this address before the guessing started keeps working.
    const partner = await createAccount(service);
    const probe = (key: string) =>
      fetch(`${service.url}/v1/partner-auth-probe`, { headers: { 'x-api-key': key } });
    expect((await probe(partner.apiKey)).status).toBe(204);

    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await probe(generateApiKey().apiKey)).status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses.slice(10)).toEqual(Array(10).fill(429));

    const limited = await probe(generateApiKey().apiKey);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    const error = errorOf((await limited.json()) as Record<string, unknown>);
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.message).toMatch(/failed API-key checks/);

    // A key never seen from this address is not even checked while the address is limited ...
    const fresh = await createAccount(service);
    expect((await probe(fresh.apiKey)).status).toBe(429);
    // ... but the partner whose key worked here is not affected.
    expect((await probe(partner.apiKey)).status).toBe(204);
    // A request without a key is not a guess: 401 as ever.
    expect((await fetch(`${service.url}/v1/partner-auth-probe`)).status).toBe(401);
  });
});

describe('CORS (CORS_ALLOWED_ORIGINS)', () => {
  const preflight = (origin: string) =>
    fetch(`${service.url}/v1/submissions`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'x-api-key, content-type, idempotency-key, x-correlation-id',
      },
    });

  it('answers a preflight from an allowed origin without a key', async () => {
    for (const origin of ['https://app.example.com', 'https://admin.example.com:8443']) {
      const res = await preflight(origin);
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe(origin);
      expect(res.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('idempotency-key');
    }
  });

  it('never reflects another origin', async () => {
    for (const origin of ['https://evil.example', 'https://app.example.com.evil.example', 'null']) {
      const res = await preflight(origin);
      expect(res.headers.get('access-control-allow-origin'), origin).toBeNull();
    }
  });
});
