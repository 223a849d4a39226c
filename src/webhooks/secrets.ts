import type { SecretBox } from '../secret-box.js';
import type { SecretRecord } from '../store/repositories/webhooks.js';

/** Associated data binding a sealed value to its owner and purpose. */
export function secretContext(partnerId: string): string {
  return `webhook-signing-secret:${partnerId}`;
}

export function apiKeyContext(partnerId: string): string {
  return `webhook-api-key:${partnerId}`;
}

/**
 * The signing secret record in effect at `now`: the newest whose activation time has come. A
 * rotated secret therefore signs nothing before its activation time (decisions.md), and the old
 * one keeps signing until then.
 */
export function secretInEffect(secrets: readonly SecretRecord[], now: Date): SecretRecord | undefined {
  return secrets
    .filter((s) => Date.parse(s.activatesAt) <= now.getTime())
    .sort((a, b) => Date.parse(b.activatesAt) - Date.parse(a.activatesAt))[0];
}

/**
 * The signing secret in effect at `now` (`secretInEffect`), opened, and the rotated secrets not
 * yet in effect (a receiver may have switched to them already): Standard Webhooks' signature
 * lists one for each, so either secret verifies during the rotation window.
 */
export function signingSecrets(
  box: SecretBox,
  partnerId: string,
  secrets: SecretRecord[],
  now: Date,
): { secret: string; upcoming: string[] } | undefined {
  const secret = activeSecret(box, partnerId, secrets, now);
  if (secret === undefined) return undefined;
  const upcoming = secrets
    .filter((s) => Date.parse(s.activatesAt) > now.getTime())
    .map((s) => box.open(s.secretSealed, secretContext(partnerId)));
  return { secret, upcoming };
}

/** The signing secret in effect at `now` (`secretInEffect`), opened. */
export function activeSecret(
  box: SecretBox,
  partnerId: string,
  secrets: SecretRecord[],
  now: Date,
): string | undefined {
  const current = secretInEffect(secrets, now);
  return current ? box.open(current.secretSealed, secretContext(partnerId)) : undefined;
}
