#!/usr/bin/env node
/**
 * Example receiver for healthspan `result.ready` callbacks (plain Node, no dependencies).
 *
 * Run it:
 *   HEALTHSPAN_SIGNING_SECRET=whsec_... PORT=4000 node examples/webhook-receiver.mjs
 * During a secret rotation, give both secrets separated by a comma (new,old).
 * Register it (development only, plain http on loopback needs WEBHOOK_ALLOW_INSECURE=true):
 *   ./bin/healthspan-admin webhooks set --partner PARTNER_ID --url http://127.0.0.1:4000/hooks/healthspan
 *
 * It follows the spec's four receiver steps on the raw body bytes (never on re-serialised JSON),
 * answers 204 to a verified delivery, 400 to a malformed one, 401 to a bad signature or stale
 * timestamp, and acknowledges a repeated X-Healthspan-Event-Id without processing it again.
 * With HEALTHSPAN_API_KEY (and HEALTHSPAN_BASE_URL, default http://localhost:8080) set, it then
 * reads the result with GET /v1/results/{resultId}, as a real receiver would, and logs its scores.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const PORT = Number(process.env.PORT ?? 4000);
const SECRETS = (process.env.HEALTHSPAN_SIGNING_SECRET ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const API_KEY = process.env.HEALTHSPAN_API_KEY;
const BASE_URL = (process.env.HEALTHSPAN_BASE_URL ?? 'http://localhost:8080').replace(/\/$/, '');
const TOLERANCE_SECONDS = 300;
const MAX_BODY_BYTES = 1024 * 1024;

if (SECRETS.length === 0) {
  console.error(
    'Set HEALTHSPAN_SIGNING_SECRET to the signing secret shown by `healthspan-admin webhooks set`.',
  );
  process.exit(1);
}

/** @returns {'ok' | 'missing_headers' | 'bad_timestamp' | 'bad_signature' | 'stale'} */
function verify(rawBody, headers) {
  const timestamp = headers['x-healthspan-timestamp'];
  const signature = headers['x-healthspan-signature'];
  if (!timestamp || !signature || !headers['x-healthspan-event-id']) return 'missing_headers';
  if (!/^\d{1,15}$/.test(timestamp)) return 'bad_timestamp';
  // 1. timestamp + "." + raw body bytes; 2. HMAC-SHA256 with the secret; 3. constant-time compare.
  const signed = Buffer.concat([Buffer.from(`${timestamp}.`), rawBody]);
  const given = Buffer.from(signature);
  const matches = SECRETS.map((secret) => {
    const expected = Buffer.from(`v1=${createHmac('sha256', secret).update(signed).digest('hex')}`);
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!matches.includes(true)) return 'bad_signature';
  // 4. Reject a timestamp more than 300 s away from now.
  if (Math.abs(Math.floor(Date.now() / 1000) - Number(timestamp)) > TOLERANCE_SECONDS) return 'stale';
  return 'ok';
}

const seenEventIds = new Set(); // use a durable store in production
function remember(eventId) {
  seenEventIds.add(eventId);
  if (seenEventIds.size > 10_000) seenEventIds.delete(seenEventIds.values().next().value);
}

function reply(res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(body ? JSON.stringify(body) : undefined);
}

const server = http.createServer((req, res) => {
  if (req.method !== 'POST') return reply(res, 405, { error: 'POST only' });
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      reply(res, 413, { error: 'body too large' });
      req.destroy();
    } else chunks.push(chunk);
  });
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks);
    const outcome = verify(rawBody, req.headers);
    if (outcome !== 'ok') {
      console.warn(JSON.stringify({ msg: 'delivery rejected', reason: outcome }));
      return reply(res, outcome === 'missing_headers' || outcome === 'bad_timestamp' ? 400 : 401, {
        error: outcome,
      });
    }
    const eventId = req.headers['x-healthspan-event-id'];
    const deliveryId = req.headers['x-healthspan-delivery-id'];
    if (seenEventIds.has(eventId)) {
      console.log(JSON.stringify({ msg: 'duplicate event acknowledged', eventId, deliveryId }));
      return reply(res, 204);
    }
    let event;
    try {
      event = JSON.parse(rawBody.toString('utf8')); // parse only after verifying the raw bytes
    } catch {
      return reply(res, 400, { error: 'body is not JSON' });
    }
    remember(eventId);
    console.log(JSON.stringify({ msg: 'event received', eventId, deliveryId, event }));
    reply(res, 204); // acknowledge first; do the work after
    if (API_KEY && typeof event.resultId === 'string') void readResult(event.resultId);
  });
});

/** The event says a result is ready; the result itself is read with the partner's API key. */
async function readResult(resultId) {
  try {
    const res = await fetch(`${BASE_URL}/v1/results/${encodeURIComponent(resultId)}`, {
      headers: { 'x-api-key': API_KEY },
    });
    const result = await res.json();
    if (!res.ok) {
      console.warn(
        JSON.stringify({ msg: 'result read failed', resultId, status: res.status, error: result.error }),
      );
      return;
    }
    const outcomes = (result.outcomes ?? (result.outcome ? [result.outcome] : [])).map((o) => ({
      focus: o.focus,
      score: o.score,
      placement: o.referencePlacementLabel,
    }));
    console.log(JSON.stringify({ msg: 'result read', resultId, status: result.status, outcomes }));
  } catch (error) {
    console.warn(JSON.stringify({ msg: 'result read failed', resultId, error: String(error) }));
  }
}

server.listen(PORT, () => {
  console.log(JSON.stringify({ msg: 'webhook receiver listening', port: server.address().port }));
});
