import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor } from '../helpers/cli.js';
import { consoleGet, consolePost, csrfOf, openLink, signIn } from '../helpers/console.js';
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

/** A console action that changes little: the live/test switch, set to live again. */
function switchToLive(cookie: string, csrf: string) {
  return consolePost(service, '/console/mode', cookie, { _csrf: csrf, mode: 'live' });
}

describe('console actions (issue 38)', () => {
  it('count against the key that made the link: past its limit a POST is 429 with Retry-After, and so is the key’s API', async () => {
    const own = await createAccount(service);
    // The link is the key's first request of the window; pages are reads and are not counted.
    const cookie = await signIn(service, own.apiKey, { scope: 'manage' });
    const csrf = csrfOf((await consoleGet(service, '/console/', cookie)).text);
    for (let i = 0; i < 4; i++) expect((await switchToLive(cookie, csrf)).res.status).toBe(303);
    const limited = await switchToLive(cookie, csrf);
    expect(limited.res.status).toBe(429);
    expect(Number(limited.res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.text).toContain('Too many requests');
    // One budget: the key's own API requests are refused as well, another key's are not.
    const probe = (key: string) =>
      fetch(`${service.url}/v1/partner-auth-probe`, { headers: { 'x-api-key': key } });
    expect((await probe(own.apiKey)).status).toBe(429);
    expect((await probe((await createAccount(service)).apiKey)).status).toBe(204);
    // Reading goes on, and signing out is never refused.
    expect((await consoleGet(service, '/console/', cookie)).res.status).toBe(200);
    expect((await consolePost(service, '/console/sign-out', cookie, { _csrf: csrf })).res.status).toBe(200);
  });

  it('an operator’s link (no key) counts in a budget of its session’s own', async () => {
    const own = await createAccount(service);
    const made = await cliFor(service, ['console', 'link', '--partner', own.partnerId, '--scope', 'manage']);
    expect(made.code).toBe(0);
    const { cookie } = await openLink(service, String(made.json?.url));
    const csrf = csrfOf((await consoleGet(service, '/console/', cookie)).text);
    for (let i = 0; i < 5; i++) expect((await switchToLive(cookie!, csrf)).res.status).toBe(303);
    expect((await switchToLive(cookie!, csrf)).res.status).toBe(429);
    // The account's key has its whole budget.
    const probe = await fetch(`${service.url}/v1/partner-auth-probe`, {
      headers: { 'x-api-key': own.apiKey },
    });
    expect(probe.status).toBe(204);
    expect(probe.headers.get('ratelimit-remaining')).toBe('4');
  });
});
