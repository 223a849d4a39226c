import { newSecret } from '../auth/secret-token.js';
import type { AuditOrigin } from '../domain/audit.js';
import type { ConsoleGateway, ConsoleScope } from '../store/tenant-access.js';

/**
 * A console sign-in link, made by the API (`POST /v1/console/sessions`, with a key) and the
 * operator's `console link` alike.
 */

/** A link must be opened within this long; the session it opens then lasts `ttlSeconds`. */
export const LINK_USABLE_MS = 5 * 60 * 1000;
export const DEFAULT_TTL_SECONDS = 8 * 60 * 60;
/** At most 8 hours: OWASP ASVS 5.0 §7.3 (an absolute limit of 12 h at most; ours is lower). */
export const MAX_TTL_SECONDS = 28_800;

/** Makes a one-time link: the token is returned once and stored only as its hash. */
export async function createConsoleLink(
  sessions: ConsoleGateway,
  input: {
    tenantId: string;
    keyId: string | null;
    scope: ConsoleScope;
    ttlSeconds?: number | undefined;
  },
  context: { now: Date; publicBaseUrl: string; origin: AuditOrigin },
): Promise<{ url: string; expiresAt: string }> {
  const token = newSecret();
  const usableUntil = new Date(context.now.getTime() + LINK_USABLE_MS);
  await sessions.createLink(
    {
      tenantId: input.tenantId,
      keyId: input.keyId,
      scope: input.scope,
      ttlSeconds: input.ttlSeconds ?? DEFAULT_TTL_SECONDS,
      tokenHash: token.hash,
      usableUntil,
    },
    context.now,
    context.origin,
  );
  const query = new URLSearchParams({ token: token.value });
  return { url: `${context.publicBaseUrl}/console/sign-in?${query}`, expiresAt: usableUntil.toISOString() };
}
