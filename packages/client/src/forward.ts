import http from 'node:http';
import https from 'node:https';

/** A streamed test event: the exact headers and body of a real delivery. */
export interface ListenDelivery {
  eventId: string;
  deliveryId: string;
  headers: Record<string, string>;
  body: string;
}

/** What the local receiver did with a forwarded event. */
export interface ForwardOutcome {
  eventId: string;
  deliveryId: string;
  url: string;
  /** The HTTP status it answered; null when it did not answer. */
  statusCode: number | null;
  /** Why there was no answer: `connection_refused`, `timeout` or `transport`. */
  error?: string;
  durationMs: number;
  /** Its answer as text, at most 4 KiB, control characters removed (the service keeps 1 KiB). */
  body: string;
}

/** The service's own deliveries say this; a forward looks the same to the receiver. */
const USER_AGENT = 'healthspan-webhooks/1';
const KEPT_ANSWER_BYTES = 4096;

/**
 * POSTs the body bytes with exactly the delivery's headers (plus Content-Length and the
 * service's User-Agent, as a real delivery has), on a fresh connection; never throws.
 */
export function forward(url: URL, delivery: ListenDelivery, timeoutMs: number): Promise<ForwardOutcome> {
  const started = performance.now();
  const body = Buffer.from(delivery.body, 'utf8');
  const base = { eventId: delivery.eventId, deliveryId: delivery.deliveryId, url: url.toString() };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: { statusCode: number | null; error?: string; body: string }) => {
      if (settled) return;
      settled = true;
      resolve({ ...base, ...outcome, durationMs: Math.round(performance.now() - started) });
    };
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(
      url,
      {
        method: 'POST',
        headers: { ...delivery.headers, 'Content-Length': String(body.length), 'User-Agent': USER_AGENT },
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < KEPT_ANSWER_BYTES) chunks.push(chunk);
          kept += chunk.length;
        });
        res.on('end', () =>
          finish({ statusCode: res.statusCode ?? null, body: answerText(Buffer.concat(chunks)) }),
        );
        res.on('error', () => finish({ statusCode: res.statusCode ?? null, body: '' }));
      },
    );
    req.on('timeout', () => {
      finish({ statusCode: null, error: 'timeout', body: '' });
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      finish({
        statusCode: null,
        error: error.code === 'ECONNREFUSED' ? 'connection_refused' : 'transport',
        body: '',
      }),
    );
    req.end(body);
  });
}

/** The answer as text for the report: its first 4 KiB, control characters removed. */
function answerText(bytes: Buffer): string {
  const text = bytes.subarray(0, KEPT_ANSWER_BYTES).toString('utf8');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').replace(/\uFFFD+$/, '');
}
