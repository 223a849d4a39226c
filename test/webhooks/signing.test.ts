import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/client/src/webhooks.js';
import {
  generateSigningSecret,
  signatureFor,
  signedHeaders,
  standardSignatureFor,
} from '../../src/webhooks/signing.js';

const body = Buffer.from(
  JSON.stringify({
    eventType: 'result.ready',
    resultId: '6f1c2a9e-1b7e-4d6b-9a51-2f3e8c0d4b11',
    submissionId: '0b8f0a57-52c4-4d2e-8d8e-9d0f4b8a1c22',
    partnerSubmissionId: 'Zoë-€-42',
    status: 'completed',
    statusLabel: 'Completed',
    completedAt: '2025-01-02T03:04:05.000Z',
  }),
  'utf8',
);
const timestamp = '1735787045';
const at = (seconds: number) => new Date(seconds * 1000);

function delivery(secret: string, ts = timestamp, raw: Buffer = body) {
  return signedHeaders({
    secret,
    eventId: randomUUID(),
    deliveryId: randomUUID(),
    timestamp: ts,
    rawBody: raw,
  });
}

describe('signatureFor', () => {
  const secret = generateSigningSecret();
  const ours = signatureFor(secret, timestamp, body);
  const signedBytes = Buffer.concat([Buffer.from(`${timestamp}.`), body]);

  it('is v1= plus 64 lowercase hex digits', () => {
    expect(ours).toMatch(/^v1=[0-9a-f]{64}$/);
    expect(signatureFor(secret, timestamp, body.toString('utf8'))).toBe(ours);
  });

  it('matches openssl dgst -sha256 -hmac over timestamp.body', () => {
    const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', secret], {
      input: signedBytes,
    }).toString();
    expect(`v1=${/([0-9a-f]{64})/.exec(out)?.[1]}`).toBe(ours);
  });

  it("matches Python's hmac over timestamp.body", () => {
    const script =
      'import hashlib, hmac, sys; print(hmac.new(sys.argv[1].encode(), sys.stdin.buffer.read(), hashlib.sha256).hexdigest())';
    const out = execFileSync('python3', ['-c', script, secret], { input: signedBytes }).toString().trim();
    expect(`v1=${out}`).toBe(ours);
  });
});

describe('signedHeaders', () => {
  it('lists the spec headers with the X-Healthspan- prefix, and Standard Webhooks’ beside them', () => {
    const headers = signedHeaders({
      secret: 's',
      eventId: 'e1',
      deliveryId: 'd1',
      timestamp: 1735787045,
      rawBody: body,
    });
    expect(headers).toEqual({
      'Content-Type': 'application/json',
      'X-Healthspan-Event': 'result.ready',
      'X-Healthspan-Delivery-Id': 'd1',
      'X-Healthspan-Event-Id': 'e1',
      'X-Healthspan-Timestamp': '1735787045',
      'X-Healthspan-Signature': signatureFor('s', '1735787045', body),
      'webhook-id': 'e1',
      'webhook-timestamp': '1735787045',
      'webhook-signature': standardSignatureFor('s', 'e1', '1735787045', body),
    });
  });

  it('signs as the Standard Webhooks reference does (its published example)', () => {
    expect(
      standardSignatureFor(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        '1614265330',
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('lists one Standard Webhooks signature per secret, the one in effect first', () => {
    const headers = signedHeaders({
      secret: 'whsec_AAAA',
      alsoSignWith: ['whsec_BBBB'],
      eventId: 'e1',
      deliveryId: 'd1',
      timestamp: 1735787045,
      rawBody: body,
    });
    expect(headers['webhook-signature']).toBe(
      `${standardSignatureFor('whsec_AAAA', 'e1', '1735787045', body)} ${standardSignatureFor('whsec_BBBB', 'e1', '1735787045', body)}`,
    );
    expect(headers['X-Healthspan-Signature']).toBe(signatureFor('whsec_AAAA', '1735787045', body));
  });

  it('refuses a timestamp that is not Unix seconds in decimal digits', () => {
    expect(() =>
      signedHeaders({ secret: 's', eventId: 'e', deliveryId: 'd', timestamp: 1.5, rawBody: body }),
    ).toThrow(RangeError);
  });
});

describe('generateSigningSecret', () => {
  it('is whsec_ plus 32 random bytes in standard base64: a Standard Webhooks secret', () => {
    const a = generateSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), 'base64')).toHaveLength(32);
    expect(generateSigningSecret()).not.toBe(a);
  });
});

describe('verifyWebhook', () => {
  const secret = generateSigningSecret();
  const now = at(Number(timestamp));

  it('accepts a genuine delivery and returns its ids', () => {
    const headers = delivery(secret);
    expect(verifyWebhook(body, headers, secret, { now })).toEqual({
      ok: true,
      eventId: headers['X-Healthspan-Event-Id'],
      deliveryId: headers['X-Healthspan-Delivery-Id'],
      timestamp: Number(timestamp),
    });
  });

  it('matches header names case-insensitively, as Node delivers them', () => {
    const lower = Object.fromEntries(Object.entries(delivery(secret)).map(([k, v]) => [k.toLowerCase(), v]));
    expect(verifyWebhook(body, lower, secret, { now }).ok).toBe(true);
  });

  it('rejects a tampered body', () => {
    const tampered = Buffer.from(body.toString('utf8').replace('completed"', 'failed"'));
    expect(verifyWebhook(tampered, delivery(secret), secret, { now })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('rejects a re-serialised body (only the raw bytes verify)', () => {
    const reserialised = JSON.stringify(JSON.parse(body.toString('utf8')), null, 2);
    expect(verifyWebhook(reserialised, delivery(secret), secret, { now })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it('rejects a wrong secret', () => {
    expect(verifyWebhook(body, delivery(generateSigningSecret()), secret, { now })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });

  it.each([
    'X-Healthspan-Timestamp',
    'X-Healthspan-Signature',
    'X-Healthspan-Event-Id',
    'X-Healthspan-Delivery-Id',
  ])('rejects a delivery without %s', (name) => {
    const headers: Record<string, string | undefined> = delivery(secret);
    delete headers[name];
    expect(verifyWebhook(body, headers, secret, { now })).toEqual({ ok: false, reason: 'missing_headers' });
  });

  it.each(['17357870xx', '-1735787045', '1735787045.0', ' 1e9'])(
    'rejects the non-numeric timestamp %j',
    (ts) => {
      const headers: Record<string, string> = {
        ...delivery(secret),
        'X-Healthspan-Timestamp': ts,
        'X-Healthspan-Signature': signatureFor(secret, ts, body),
      };
      expect(verifyWebhook(body, headers, secret, { now })).toEqual({ ok: false, reason: 'bad_timestamp' });
    },
  );

  it('accepts exactly 300 s either way, rejects 301 s old or 301 s in the future', () => {
    const headers = delivery(secret);
    const ts = Number(timestamp);
    expect(verifyWebhook(body, headers, secret, { now: at(ts + 300) }).ok).toBe(true);
    expect(verifyWebhook(body, headers, secret, { now: at(ts - 300) }).ok).toBe(true);
    expect(verifyWebhook(body, headers, secret, { now: at(ts + 301) })).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifyWebhook(body, headers, secret, { now: at(ts - 301) })).toEqual({
      ok: false,
      reason: 'stale',
    });
    expect(verifyWebhook(body, headers, secret, { now: at(ts + 3600), toleranceSeconds: 3600 }).ok).toBe(
      true,
    );
  });

  it('accepts the old and the new secret during rotation', () => {
    const next = generateSigningSecret();
    expect(verifyWebhook(body, delivery(secret), [next, secret], { now }).ok).toBe(true);
    expect(verifyWebhook(body, delivery(next), [next, secret], { now }).ok).toBe(true);
    expect(verifyWebhook(body, delivery(generateSigningSecret()), [next, secret], { now }).ok).toBe(false);
    expect(verifyWebhook(body, delivery(secret), [], { now })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
  });
});
