import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSigningSecret, signedHeaders } from '../../src/webhooks/signing.js';

const secret = generateSigningSecret();
let child: ChildProcessWithoutNullStreams;
let url: string;
const logs: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const script = path.resolve(import.meta.dirname, '../../examples/webhook-receiver.mjs');
  child = spawn(process.execPath, [script], {
    env: { ...process.env, PORT: '0', HEALTHSPAN_SIGNING_SECRET: secret },
  });
  const lines = createInterface({ input: child.stdout });
  const ready = new Promise<number>((resolve) => {
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (typeof entry.port === 'number') resolve(entry.port);
    });
  });
  url = `http://127.0.0.1:${await ready}/hooks/healthspan`;
});
afterAll(async () => {
  child.kill();
  await once(child, 'exit');
});

const body = JSON.stringify({ eventType: 'result.ready', resultId: randomUUID(), status: 'completed' });

function send(raw: string, options: { eventId?: string; timestamp?: number; key?: string } = {}) {
  const headers = signedHeaders({
    secret: options.key ?? secret,
    eventId: options.eventId ?? randomUUID(),
    deliveryId: randomUUID(),
    timestamp: options.timestamp ?? Math.floor(Date.now() / 1000),
    rawBody: raw,
  });
  return fetch(url, { method: 'POST', headers, body: raw });
}

describe('examples/webhook-receiver.mjs', () => {
  it('acknowledges a genuine delivery once per event id and logs it', async () => {
    const eventId = randomUUID();
    expect((await send(body, { eventId })).status).toBe(204);
    expect((await send(body, { eventId })).status).toBe(204);
    await expect
      .poll(() => logs.filter((l) => l.eventId === eventId).map((l) => l.msg))
      .toEqual(['event received', 'duplicate event acknowledged']);
  });

  it('answers 401 to a tampered body, a wrong secret and a stale timestamp', async () => {
    const headers = signedHeaders({
      secret,
      eventId: randomUUID(),
      deliveryId: randomUUID(),
      timestamp: Math.floor(Date.now() / 1000),
      rawBody: body,
    });
    const tampered = await fetch(url, { method: 'POST', headers, body: body.replace('completed', 'failed') });
    expect(tampered.status).toBe(401);
    expect((await send(body, { key: generateSigningSecret() })).status).toBe(401);
    expect((await send(body, { timestamp: Math.floor(Date.now() / 1000) - 301 })).status).toBe(401);
  });

  it('answers 400 to a delivery without the signature headers', async () => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(res.status).toBe(400);
  });
});
