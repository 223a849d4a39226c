import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../packages/client/src/webhooks.js';
import { secretBoxFor } from '../../src/webhooks/index.js';
import { secretContext } from '../../src/webhooks/secrets.js';
import { standardSecret } from '../../src/webhooks/signing.js';
import { cliFor, setCallback } from '../helpers/cli.js';
import { completeSubmission, waitUntil } from '../helpers/pipeline.js';
import type { ReceivedDelivery } from '../helpers/receiver.js';
import { createAccount, serviceWithReceiver } from '../helpers/service.js';

/**
 * Deliveries are Standard Webhooks too: real deliveries verified by the `standardwebhooks`
 * library, by a Python standard-library verifier (examples/) and by the contract's own recipe,
 * with one secret, during a rotation, and with a secret issued before Standard Webhooks.
 */
const PYTHON_VERIFIER = path.resolve(import.meta.dirname, '../../examples/verify_standard_webhook.py');
const ctx = serviceWithReceiver();

function header(d: ReceivedDelivery, name: string): string {
  const value = d.headers[name];
  if (typeof value !== 'string') throw new Error(`no ${name} header`);
  return value;
}

function pythonVerifies(secret: string, d: ReceivedDelivery, body = d.rawBody): boolean {
  const res = spawnSync(
    'python3',
    [
      PYTHON_VERIFIER,
      secret,
      header(d, 'webhook-id'),
      header(d, 'webhook-timestamp'),
      header(d, 'webhook-signature'),
    ],
    { input: body },
  );
  if (res.status === 2 || res.error) throw new Error(`python3 failed: ${res.stderr} ${res.error}`);
  return res.status === 0 && res.stdout.toString().trim() === 'verified';
}

/** What the `standardwebhooks` library says of the delivery: true, or the error it threw. */
function libraryVerifies(secret: string, d: ReceivedDelivery, body = d.rawBody.toString('utf8')): boolean {
  try {
    new Webhook(secret).verify(body, {
      'webhook-id': header(d, 'webhook-id'),
      'webhook-timestamp': header(d, 'webhook-timestamp'),
      'webhook-signature': header(d, 'webhook-signature'),
    });
    return true;
  } catch {
    return false;
  }
}

/** The first delivery, after `action`, of the result it names (the receiver is shared). */
async function nextDelivery(action: () => Promise<string>): Promise<ReceivedDelivery> {
  const before = ctx.receiver.deliveries.length;
  const resultId = await action();
  return waitUntil(
    async () =>
      ctx.receiver.deliveries
        .slice(before)
        .find((d) => JSON.parse(d.rawBody.toString('utf8')).resultId === resultId),
    60_000,
    'a delivery',
  );
}

describe('Standard Webhooks signatures', () => {
  it('signs every delivery so standardwebhooks, Python and the contract recipe all verify it', async () => {
    const account = await createAccount(ctx.service);
    const secret = await setCallback(ctx.service, account.partnerId, ctx.receiverUrl);
    // A new secret is a valid Standard Webhooks secret as it is.
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardSecret(secret)).toBe(secret);

    const delivery = await nextDelivery(() => completeSubmission(ctx.service, account));
    expect(header(delivery, 'webhook-id')).toBe(header(delivery, 'x-healthspan-event-id'));
    expect(header(delivery, 'webhook-timestamp')).toBe(header(delivery, 'x-healthspan-timestamp'));
    expect(header(delivery, 'webhook-signature')).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(libraryVerifies(secret, delivery)).toBe(true);
    expect(pythonVerifies(secret, delivery)).toBe(true);
    expect(verifyWebhook(delivery.rawBody, delivery.headers, secret)).toMatchObject({ ok: true });

    // Each check can fail: another secret, or one changed byte.
    const wrong = await setCallback(
      ctx.service,
      (await createAccount(ctx.service)).partnerId,
      ctx.receiverUrl,
    );
    expect(libraryVerifies(wrong, delivery)).toBe(false);
    expect(pythonVerifies(wrong, delivery)).toBe(false);
    const tampered = Buffer.from(delivery.rawBody.toString('utf8').replace('completed', 'Completed'));
    expect(libraryVerifies(secret, delivery, tampered.toString('utf8'))).toBe(false);
    expect(pythonVerifies(secret, delivery, tampered)).toBe(false);
  });

  it('lists both secrets’ signatures while a rotated secret waits to take effect', async () => {
    const account = await createAccount(ctx.service);
    const old = await setCallback(ctx.service, account.partnerId, ctx.receiverUrl);
    const resultId = await completeSubmission(ctx.service, account);
    // This result's own first delivery (the receiver is shared with the other tests), so that the
    // delivery below is the redelivery, signed after the rotation.
    const ofResult = () =>
      ctx.receiver.deliveries.filter((d) => JSON.parse(d.rawBody.toString('utf8')).resultId === resultId);
    await waitUntil(async () => ofResult().length > 0, 60_000, 'the first delivery');
    const rotated = (await cliFor(ctx.service, ['webhooks', 'rotate-secret', '--partner', account.partnerId]))
      .json!.signingSecret as string;

    const delivery = await nextDelivery(async () => {
      await cliFor(ctx.service, ['webhooks', 'redeliver', '--result', resultId]);
      return resultId;
    });
    expect(header(delivery, 'webhook-signature').split(' ')).toHaveLength(2);
    for (const secret of [old, rotated]) {
      expect(libraryVerifies(secret, delivery), secret).toBe(true);
      expect(pythonVerifies(secret, delivery), secret).toBe(true);
    }
    // The contract's signature stays the one in effect until the rotation's time.
    expect(verifyWebhook(delivery.rawBody, delivery.headers, old)).toMatchObject({ ok: true });
    expect(verifyWebhook(delivery.rawBody, delivery.headers, rotated)).toMatchObject({ ok: false });
  });

  it('signs with a secret issued before Standard Webhooks: same string for the contract, its standard spelling for libraries', async () => {
    const account = await createAccount(ctx.service);
    await setCallback(ctx.service, account.partnerId, ctx.receiverUrl);
    // A secret as they were issued until now: base64url, with the URL-safe letters in it.
    const legacy = `whsec_${Buffer.alloc(32, 0xfb).toString('base64url')}`;
    expect(legacy).toMatch(/[-_]/);
    const box = secretBoxFor(ctx.service.config);
    const { webhooks, batcher } = ctx.service.store.system;
    // Newer than the secret `webhooks set` made, so it is the one in effect.
    const now = new Date(Date.now() + 5);
    await batcher.submit((trx) =>
      webhooks.addSecret(
        trx,
        account.partnerId,
        box.seal(legacy, secretContext(account.partnerId)),
        now,
        now,
      ),
    );

    const delivery = await nextDelivery(() => completeSubmission(ctx.service, account));
    // Receivers verifying X-Healthspan-Signature keep the secret they have.
    expect(verifyWebhook(delivery.rawBody, delivery.headers, legacy)).toMatchObject({ ok: true });
    // Standard Webhooks libraries want standard base64: the same key, spelled so.
    const spelled = standardSecret(legacy);
    expect(spelled).not.toBe(legacy);
    expect(libraryVerifies(spelled, delivery)).toBe(true);
    expect(pythonVerifies(spelled, delivery)).toBe(true);
    expect(pythonVerifies(legacy, delivery)).toBe(true);
  });
});
