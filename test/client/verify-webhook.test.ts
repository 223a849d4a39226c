import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/client/src/webhooks.js';

/**
 * The receiver's check of `options.now` (issue 38): milliseconds, as `Date.now()` gives them,
 * work as a `Date` does; anything else is refused by the client with a message naming the option,
 * not a `TypeError` from deep inside (`getTime is not a function`).
 */
const SECRET = 'whsec_test_secret';
const BODY = '{"eventType":"result.ready"}';
const SENT_AT = 1_800_000_000; // seconds

function headers(timestamp: number) {
  const mac = createHmac('sha256', SECRET).update(`${timestamp}.${BODY}`).digest('hex');
  return {
    'X-Healthspan-Event-Id': 'evt-1',
    'X-Healthspan-Delivery-Id': 'dlv-1',
    'X-Healthspan-Timestamp': String(timestamp),
    'X-Healthspan-Signature': `v1=${mac}`,
  };
}

describe('verifyWebhook options.now', () => {
  it('takes milliseconds as it takes a Date, in and out of the tolerance', () => {
    const h = headers(SENT_AT);
    const inTime = SENT_AT * 1000 + 299_000;
    const late = SENT_AT * 1000 + 301_000;
    expect(verifyWebhook(BODY, h, SECRET, { now: inTime })).toEqual({
      ok: true,
      eventId: 'evt-1',
      deliveryId: 'dlv-1',
      timestamp: SENT_AT,
    });
    expect(verifyWebhook(BODY, h, SECRET, { now: new Date(inTime) }).ok).toBe(true);
    expect(verifyWebhook(BODY, h, SECRET, { now: late })).toEqual({ ok: false, reason: 'stale' });
    expect(verifyWebhook(BODY, h, SECRET, { now: new Date(late) })).toEqual({ ok: false, reason: 'stale' });
  });

  it.each([
    ['a string', '2027-01-15T08:00:00Z', 'got a string'],
    ['NaN', Number.NaN, 'got NaN'],
    ['an invalid Date', new Date('not a date'), 'got an invalid Date'],
  ])('refuses %s, naming the option', (_name, now, got) => {
    const call = () => verifyWebhook(BODY, headers(SENT_AT), SECRET, { now: now as unknown as number });
    expect(call).toThrow(TypeError);
    expect(call).toThrow(
      `verifyWebhook: options.now must be a Date or a number of milliseconds since 1970 (Date.now()), ${got}.`,
    );
  });
});
