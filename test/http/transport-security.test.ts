import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleLink } from '../helpers/console.js';
import { rawRequest } from '../helpers/raw-http.js';
import { createAccount, startTestService, type TestService, testKeyFor } from '../helpers/service.js';
import { SseStream } from '../helpers/sse.js';

/**
 * `Strict-Transport-Security` (issue 38): on every answer, API and console, success or error,
 * when PUBLIC_BASE_URL is https; never for http; `HSTS_MAX_AGE_SECONDS=0` turns it off.
 */
const HTTPS = { RATE_LIMIT_PER_MINUTE: '0', PUBLIC_BASE_URL: 'https://api.example.test' };
let https: TestService;
let off: TestService;
let http: TestService;

beforeAll(async () => {
  [https, off, http] = await Promise.all([
    startTestService(HTTPS),
    startTestService({ ...HTTPS, HSTS_MAX_AGE_SECONDS: '0' }),
    startTestService({ RATE_LIMIT_PER_MINUTE: '0' }),
  ]);
});
afterAll(async () => {
  await Promise.all([https?.stop(), off?.stop(), http?.stop()]);
});

/** Every kind of answer: support, API success and errors, a framework error, console pages. */
async function headersOf(service: TestService): Promise<Array<[string, string | null]>> {
  const account = await createAccount(service);
  const got = async (path: string, headers: Record<string, string> = {}, label = path) => {
    const res = await fetch(`${service.url}${path}`, { headers, redirect: 'manual' });
    await res.arrayBuffer();
    return [`${label} ${res.status}`, res.headers.get('strict-transport-security')] as [
      string,
      string | null,
    ];
  };
  const link = await consoleLink(service, account.apiKey);
  const signIn = new URL(String(link.json.url));
  const raw = await rawRequest(service.url, 'GET /v1/submissions/%zz HTTP/1.1\r\nHost: x\r\n\r\n');
  const test = await testKeyFor(service, account);
  const stream = await SseStream.open(`${service.url}/v1/test/events/stream`, { 'x-api-key': test.apiKey });
  stream.close();
  return [
    await got('/health'),
    await got('/v1/partner-auth-probe', { 'x-api-key': account.apiKey }),
    await got('/v1/partner-auth-probe'),
    await got('/v1/nothing-here'),
    [`raw ${raw.response?.status}`, raw.response?.headers['strict-transport-security'] ?? null],
    [`stream ${stream.status}`, (stream.headers['strict-transport-security'] as string | undefined) ?? null],
    await got(`${signIn.pathname}${signIn.search}`, {}, '/console/sign-in'),
    await got('/console/'),
    await got('/console/assets/console.css'),
  ];
}

describe('Strict-Transport-Security', () => {
  it('is on every answer when PUBLIC_BASE_URL is https', async () => {
    const seen = await headersOf(https);
    expect(seen.map(([what]) => what)).toEqual([
      '/health 200',
      '/v1/partner-auth-probe 204',
      '/v1/partner-auth-probe 401',
      '/v1/nothing-here 404',
      'raw 400',
      'stream 200',
      '/console/sign-in 303',
      '/console/ 401',
      '/console/assets/console.css 200',
    ]);
    for (const [what, value] of seen)
      expect([what, value]).toEqual([what, 'max-age=31536000; includeSubDomains']);
  });

  it('is never sent with HSTS_MAX_AGE_SECONDS=0, nor when PUBLIC_BASE_URL is http', async () => {
    for (const service of [off, http]) {
      for (const [what, value] of await headersOf(service)) expect([what, value]).toEqual([what, null]);
    }
  });
});
