import { describe, expect, it } from 'vitest';
import { envelopeOf, rawRequest } from '../helpers/raw-http.js';
import { serviceWithAccount } from '../helpers/service.js';

/**
 * Requests Node's HTTP parser or the router refuse before any route runs (issue 12, defect 4):
 * each gets the documented envelope with a request id over a real socket, never Fastify's own
 * body, an empty body or a dropped connection.
 */
const ctx = serviceWithAccount();

const cases: Array<[string, string, number, string]> = [
  ['an obs-fold header line', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n', 400, 'BAD_REQUEST'],
  ['a bare CR in a header', 'GET /health HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n', 400, 'BAD_REQUEST'],
  [
    'two Content-Length values',
    'POST /v1/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
    400,
    'BAD_REQUEST',
  ],
  [
    'an unknown Transfer-Encoding',
    'POST /v1/submissions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n{}',
    400,
    'BAD_REQUEST',
  ],
  ['a lowercase method', 'get /health HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'BAD_REQUEST'],
  ['no Host header', 'GET /health HTTP/1.1\r\n\r\n', 400, 'BAD_REQUEST'],
  [
    'headers over the size limit',
    `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    431,
    'HEADERS_TOO_LARGE',
  ],
  ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405, 'METHOD_NOT_ALLOWED'],
  ['TRACE', 'TRACE /health HTTP/1.1\r\nHost: x\r\n\r\n', 405, 'METHOD_NOT_ALLOWED'],
  [
    'an Expect other than 100-continue',
    'GET /health HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n',
    417,
    'EXPECTATION_FAILED',
  ],
  ['PROPFIND', 'PROPFIND /v1/submissions HTTP/1.1\r\nHost: x\r\n\r\n', 405, 'METHOD_NOT_ALLOWED'],
  ['a malformed percent-encoding', 'GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'BAD_REQUEST'],
  ['an HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400, 'BAD_REQUEST'],
  ['binary garbage', '\u0000\u0001\u0002garbage\r\n\r\n', 400, 'BAD_REQUEST'],
  [
    'a body cut short, without a key (the key check answers first)',
    'POST /v1/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":',
    401,
    'INVALID_API_KEY',
  ],
  [
    'DELETE with a JSON content type and no body',
    'DELETE /v1/submissions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n',
    405,
    'METHOD_NOT_ALLOWED',
  ],
];

describe('requests refused before routing', () => {
  it.each(cases.map(([name, request, status, code]) => ({ name, request, status, code })))(
    '$name: $status $code in the envelope',
    async ({ request, status, code }) => {
      const outcome = await rawRequest(ctx.service.url, request);
      expect(outcome.response?.status, outcome.raw).toBe(status);
      const error = envelopeOf(outcome.response);
      expect(error?.code).toBe(code);
      expect(error?.message).toMatch(/\w/);
      expect(error?.requestId).toMatch(/\S/);
      expect(outcome.response?.headers['x-request-id']).toBe(error?.requestId);
      // One request, one answer: never a second response for the rest of a refused request.
      expect(outcome.raw.match(/^HTTP\/1\.1 [2-5]\d\d /gm)).toHaveLength(1);
    },
  );

  it('answers HTTP/1.0 without a Host header', async () => {
    const outcome = await rawRequest(ctx.service.url, 'GET /health HTTP/1.0\r\n\r\n');
    expect(outcome.response?.status).toBe(200);
  });

  it('answers a body cut short with a key as a 400, not a hang', async () => {
    const outcome = await rawRequest(
      ctx.service.url,
      `POST /v1/submissions HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${ctx.account.apiKey}\r\nIdempotency-Key: k\r\nX-Correlation-Id: c\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":`,
    );
    expect(outcome.response?.status).toBe(400);
    expect(envelopeOf(outcome.response)?.code).toBe('BAD_REQUEST');
  });
});
