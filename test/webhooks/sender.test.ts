import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../../src/webhooks/guard.js';
import { sendOnce } from '../../src/webhooks/sender.js';
import { TestReceiver } from '../helpers/receiver.js';

/**
 * The connect-time half of the guard on the delivery path itself: a host name that resolved to a
 * public address at registration and now resolves to loopback (DNS rebinding) is refused on the
 * address actually dialled, and the receiver never sees a byte.
 */
describe('sendOnce', () => {
  const receiver = new TestReceiver();
  let port: number;
  const rebinding: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

  beforeAll(async () => {
    await receiver.start();
    port = receiver.port;
  });
  afterAll(async () => {
    await receiver.stop();
  });

  it('refuses a name that now resolves to loopback, before connecting', async () => {
    const before = receiver.deliveries.length;
    const outcome = await sendOnce(`https://hooks.partner.example:${port}/x`, {}, Buffer.from('{}'), {
      timeoutMs: 10_000,
      allowInsecure: false,
      resolve: rebinding,
    });
    expect(outcome).toMatchObject({ ok: false, errorClass: 'blocked_address', statusCode: null });
    expect(receiver.deliveries.length).toBe(before);
  });

  it.each([
    ['127.0.0.1', 4],
    ['10.0.0.5', 4],
    ['172.20.1.1', 4],
    ['192.168.1.1', 4],
    ['100.64.0.1', 4],
    ['169.254.169.254', 4],
    ['169.254.7.7', 4],
    ['224.0.0.251', 4],
    ['0.0.0.0', 4],
    ['::1', 6],
    ['::ffff:10.0.0.1', 6],
    ['::ffff:127.0.0.1', 6],
    ['fe80::1', 6],
    ['fd12:3456::1', 6],
    ['ff02::1', 6],
  ])('refuses at connect time a name that resolves to %s', async (address, family) => {
    const before = receiver.deliveries.length;
    const outcome = await sendOnce(`https://hooks.partner.example:${port}/x`, {}, Buffer.from('{}'), {
      timeoutMs: 10_000,
      allowInsecure: false,
      resolve: async () => [{ address, family }],
    });
    expect(outcome).toMatchObject({ ok: false, errorClass: 'blocked_address' });
    expect(receiver.deliveries.length).toBe(before);
  });

  it('refuses an IP-literal target without any lookup', async () => {
    const outcome = await sendOnce(`https://127.0.0.1:${port}/x`, {}, Buffer.from('{}'), {
      timeoutMs: 10_000,
      allowInsecure: false,
    });
    expect(outcome).toMatchObject({ ok: false, errorClass: 'invalid_url' });
  });

  it('reaches the same name through the same resolver when insecure targets are allowed', async () => {
    const before = receiver.deliveries.length;
    const outcome = await sendOnce(
      `http://hooks.partner.example:${port}/x`,
      { 'Content-Type': 'application/json' },
      Buffer.from('{"a":1}'),
      { timeoutMs: 2000, allowInsecure: true, resolve: rebinding },
    );
    expect(outcome).toMatchObject({ ok: true, statusCode: 204, errorClass: null });
    expect(receiver.deliveries[before]!.rawBody.toString()).toBe('{"a":1}');
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    receiver.replies = [302];
    const outcome = await sendOnce(`http://127.0.0.1:${port}/x`, {}, Buffer.from('{}'), {
      timeoutMs: 10_000,
      allowInsecure: true,
    });
    expect(outcome).toMatchObject({ ok: false, statusCode: 302, errorClass: 'http_status' });
  });

  it('gives up on a receiver that never answers after its timeout, as a timeout', async () => {
    // Nothing else is timed here: a hung receiver times out however long the machine takes.
    receiver.replies = ['hang'];
    const before = receiver.deliveries.length;
    const outcome = await sendOnce(`http://127.0.0.1:${port}/x`, {}, Buffer.from('{}'), {
      timeoutMs: 300,
      allowInsecure: true,
    });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorClass: 'timeout' });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(299);
    expect(receiver.deliveries.length).toBe(before + 1);
  });

  it('classifies a connection dropped without an answer', async () => {
    receiver.replies = ['reset'];
    const outcome = await sendOnce(`http://127.0.0.1:${port}/x`, {}, Buffer.from('{}'), {
      timeoutMs: 10_000,
      allowInsecure: true,
    });
    expect(outcome).toMatchObject({ ok: false, statusCode: null, errorClass: 'connection_reset' });
  });

  it('classifies a refused connection', async () => {
    const outcome = await sendOnce('http://127.0.0.1:1/x', {}, Buffer.from('{}'), {
      timeoutMs: 10_000,
      allowInsecure: true,
    });
    expect(outcome).toMatchObject({ ok: false, errorClass: 'connection_refused' });
  });
});
