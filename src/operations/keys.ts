import { generateApiKey } from '../auth/api-keys.js';
import type { AuditOrigin } from '../domain/audit.js';
import { isUuid } from '../domain/ids.js';
import type { ApiMode } from '../domain/mode.js';
import type { KeyCreateOutcome, TenantAccess } from '../store/tenant-access.js';

/**
 * Issuing and revoking an API key, for the operator's `keys create` / `keys revoke` /
 * `quickstart` and the console's keys page alike: the key is made here (its mode names its
 * prefix), its lifetime turned into an expiry here, and it is stored as its hash only.
 */

/** A key to issue. */
export interface KeyRequest {
  /** `live` (`hs_live_…`) or `test` (`hs_test_…`: sees the sandbox's data only). */
  mode: ApiMode;
  /** How long the key works from now, in milliseconds; null for a key that never expires. */
  lifetimeMs: number | null;
}

export interface IssuedKey {
  keyId: string;
  mode: ApiMode;
  /** The key itself: in this answer and nowhere else (it is stored as its hash). */
  apiKey: string;
  expiresAt: string | null;
}

/**
 * Why a key was not issued: a lifetime that is not longer than zero; a sandbox's access issues
 * test keys only (the account's own mode decides, read by the store); the account has no
 * credential for the key to join.
 */
export type KeyRefusal = 'no_lifetime' | Extract<KeyCreateOutcome, { ok: false }>['reason'];

export type KeyOutcome = { ok: true; key: IssuedKey } | { ok: false; reason: KeyRefusal };

export interface KeyContext {
  now: Date;
  origin: AuditOrigin;
}

/**
 * The operator's side of the store: any credential's keys (`SystemStore.accounts`, which the CLI
 * hands in; operations/ reach the store only through what they are handed).
 */
export interface OperatorKeys {
  /** Stores a key for a live credential (`test`: for its sandbox's, made if need be); audited. */
  insertKey(
    input: { partnerId: string; keyHash: string; keyPrefix: string; expiresAt: Date | null; mode: ApiMode },
    origin: AuditOrigin,
  ): Promise<{ keyId: string; expiresAt: string | null }>;
  /** Revokes any key; revoking twice keeps the first time (and its one audit event). */
  revokeKey(keyId: string, origin: AuditOrigin): Promise<{ keyId: string; revokedAt: string }>;
}

/** The partner's side: the keys of the account a console session was opened for. */
export type AccountKeys = TenantAccess['keys'];

/** The key and its expiry, made the same way for both sides; undefined for a lifetime of zero or less. */
function mint(request: KeyRequest, now: Date) {
  if (request.lifetimeMs !== null && request.lifetimeMs <= 0) return undefined;
  const key = generateApiKey(request.mode);
  return {
    apiKey: key.apiKey,
    keyHash: key.hash,
    keyPrefix: key.displayPrefix,
    expiresAt: request.lifetimeMs === null ? null : new Date(now.getTime() + request.lifetimeMs),
  };
}

/** A key for the partner credential the operator names, of either mode (a sandbox made if need be). */
export async function issueOperatorKey(
  accounts: OperatorKeys,
  partnerId: string,
  request: KeyRequest,
  context: KeyContext,
): Promise<{ ok: true; key: IssuedKey } | { ok: false; reason: 'no_lifetime' }> {
  const minted = mint(request, context.now);
  if (!minted) return { ok: false, reason: 'no_lifetime' };
  const { apiKey, ...key } = minted;
  const stored = await accounts.insertKey({ partnerId, ...key, mode: request.mode }, context.origin);
  return {
    ok: true,
    key: { keyId: stored.keyId, mode: request.mode, apiKey, expiresAt: stored.expiresAt },
  };
}

/**
 * A key for the account a session was opened for: it joins the credential of `credentialOf`
 * (the session's key) when that is the account's, else the account's first credential.
 */
export async function issueAccountKey(
  keys: AccountKeys,
  credentialOf: string | null,
  request: KeyRequest,
  context: KeyContext,
): Promise<KeyOutcome> {
  const minted = mint(request, context.now);
  if (!minted) return { ok: false, reason: 'no_lifetime' };
  const { apiKey, ...key } = minted;
  const made = await keys.create({ mode: request.mode, ...key, credentialOf }, context.origin);
  if (!made.ok) return made;
  return { ok: true, key: { keyId: made.keyId, mode: made.mode, apiKey, expiresAt: made.expiresAt } };
}

/** Revokes any key (the operator's); revoking twice keeps the first time. */
export function revokeOperatorKey(accounts: OperatorKeys, keyId: string, origin: AuditOrigin) {
  return accounts.revokeKey(keyId, origin);
}

/**
 * Revokes one of the account's keys, or undefined when it has none of this id; `revoked` is then
 * told (this process's key cache drops the key at once).
 */
export async function revokeAccountKey(
  keys: AccountKeys,
  keyId: string,
  context: { origin: AuditOrigin; revoked: () => void },
): Promise<{ keyId: string; revokedAt: string } | undefined> {
  const done = isUuid(keyId) ? await keys.revoke(keyId, context.origin) : undefined;
  if (done) context.revoked();
  return done;
}
