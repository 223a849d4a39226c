import http from 'node:http';
import https from 'node:https';
import { checkCallbackUrl, guardedLookup, type Resolver } from './guard.js';
import { SnippetCollector } from './response-snippet.js';

/** Why an attempt did not get a 2xx, in words an operator can act on. */
export type DeliveryErrorClass =
  | 'http_status'
  | 'timeout'
  | 'blocked_address'
  | 'invalid_url'
  | 'dns'
  | 'connection_refused'
  | 'connection_reset'
  | 'tls'
  | 'transport';

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  errorClass: DeliveryErrorClass | null;
  latencyMs: number;
  /** Plain-language reason when not ok; never the receiver's response body. */
  reason: string | null;
  /** The first 1 KiB of the receiver's answer, sanitised (`response-snippet.ts`); null without one. */
  snippet: string | null;
}

export interface SendOptions {
  timeoutMs: number;
  allowInsecure: boolean;
  /** DNS for the connect-time guard; the system resolver unless a test supplies one. */
  resolve?: Resolver;
}

const TLS_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERR_SSL_WRONG_VERSION_NUMBER',
]);

type TransportErrorClass = Exclude<DeliveryErrorClass, 'http_status' | 'invalid_url'>;

function classify(error: NodeJS.ErrnoException): TransportErrorClass {
  const code = error.code ?? '';
  if (code === 'EBLOCKEDADDRESS') return 'blocked_address';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'dns';
  if (code === 'ECONNREFUSED') return 'connection_refused';
  if (code === 'ECONNRESET' || code === 'EPIPE') return 'connection_reset';
  if (TLS_CODES.has(code) || code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS')) return 'tls';
  return 'transport';
}

const REASONS: Record<TransportErrorClass, string> = {
  timeout: 'The callback endpoint did not answer in time.',
  blocked_address: 'The callback host resolved to an address callbacks may not go to.',
  dns: 'The callback host name could not be resolved.',
  connection_refused: 'The callback endpoint refused the connection.',
  connection_reset: 'The callback endpoint closed the connection.',
  tls: 'The callback endpoint’s TLS certificate could not be verified.',
  transport: 'The callback could not be sent.',
};

/**
 * One POST of the exact body bytes. Redirects are not followed (a 3xx is a failed attempt),
 * the URL is checked again and the address actually dialled is checked at connect time, and
 * the whole exchange is bounded by `timeoutMs`. Never throws.
 */
export function sendOnce(
  url: string,
  headers: Record<string, string>,
  body: Buffer,
  options: SendOptions,
): Promise<AttemptOutcome> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const checked = checkCallbackUrl(url, { allowInsecure: options.allowInsecure });
  if (!checked.ok) {
    return Promise.resolve({
      ok: false,
      statusCode: null,
      errorClass: 'invalid_url',
      latencyMs: 0,
      reason: checked.reason,
      snippet: null,
    });
  }
  const target = checked.url;
  const transport = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    // The receiver's answer is kept to its first 1 KiB (shown in the event's attempts).
    const answer = new SnippetCollector();
    const finish = (outcome: Omit<AttemptOutcome, 'latencyMs' | 'snippet'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, latencyMs: elapsed(), snippet: answer.snippet() });
    };
    const req = transport.request(
      target,
      {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(body.length), 'User-Agent': 'healthspan-webhooks/1' },
        lookup: guardedLookup({
          allowInsecure: options.allowInsecure,
          ...(options.resolve ? { resolve: options.resolve } : {}),
        }),
        // A fresh connection per attempt: a pooled socket would skip the connect-time check.
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        // Drain the body, keeping only its first 1 KiB.
        res.on('data', (chunk: Buffer) => answer.add(chunk));
        res.on('end', () =>
          finish(
            status >= 200 && status < 300
              ? { ok: true, statusCode: status, errorClass: null, reason: null }
              : {
                  ok: false,
                  statusCode: status,
                  errorClass: 'http_status',
                  reason: `The callback endpoint answered ${status}.`,
                },
          ),
        );
        res.on('error', (error: NodeJS.ErrnoException) => {
          const cls = classify(error);
          finish({ ok: false, statusCode: status, errorClass: cls, reason: REASONS[cls] });
        });
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, statusCode: null, errorClass: 'timeout', reason: REASONS.timeout });
      req.destroy();
    }, options.timeoutMs);
    req.on('error', (error: NodeJS.ErrnoException) => {
      const cls = classify(error);
      finish({ ok: false, statusCode: null, errorClass: cls, reason: REASONS[cls] });
    });
    req.end(body);
  });
}
