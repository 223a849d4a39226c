import type { Kysely, Transaction } from 'kysely';
import type { AuditOrigin } from '../../domain/audit.js';
import type { ApiMode } from '../../domain/mode.js';
import { bool, iso, isoOrNull } from '../codec.js';
import type { Database } from '../database.js';
import { newId } from '../ids.js';
import type { AuditRepository } from './audit.js';

/** What a console session may do: `read` sees everything but secrets and changes nothing. */
export type ConsoleScope = 'read' | 'manage';

/** A console session as the console uses it: never its cookie (only the hash is stored). */
export interface ConsoleSessionRecord {
  sessionId: string;
  /** The account of the key that made the link (a sandbox account for a test key). */
  tenantId: string;
  /** The live account of that account (itself for a live key). */
  liveTenantId: string;
  /** The API key that asked for the link; null for an operator's link (`healthspan-admin console link`). */
  keyId: string | null;
  /**
   * That key's hash (the rate limit counts the session's actions under the key's own counter);
   * null for an operator's link. Never shown or logged.
   */
  keyHash: string | null;
  /** The mode of the key that made the link: a test key's session never shows live data. */
  keyMode: ApiMode;
  scope: ConsoleScope;
  /** The mode the console shows now (the live/test switch). */
  mode: ApiMode;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

/** Why a cookie opens no session: each ends the session (when there was one) for good. */
export type ConsoleSessionEnd = 'unknown' | 'ended' | 'idle' | 'expired' | 'key_revoked' | 'inactive';

export type ConsoleSessionLookup =
  | { ok: true; session: ConsoleSessionRecord }
  | { ok: false; reason: ConsoleSessionEnd };

export interface NewConsoleLink {
  tenantId: string;
  keyId: string | null;
  scope: ConsoleScope;
  ttlSeconds: number;
  tokenHash: string;
  /** Until when the link may be opened (the session then lasts `ttlSeconds` from sign-in). */
  usableUntil: Date;
}

/**
 * One-time console links and the sessions they open. Unscoped by nature (a cookie or a link
 * names no account): the console reaches it only through `ConsoleGateway`, and everything it then
 * reads goes through the session's account's `TenantAccess`.
 */
export class ConsoleSessionsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly audit: AuditRepository,
  ) {}

  /** Stores a link (its token's hash), audited as made by `origin` (the key, or an operator). */
  async createLink(link: NewConsoleLink, now: Date, origin: AuditOrigin): Promise<{ linkId: string }> {
    const linkId = newId();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('console_links')
        .values({
          id: linkId,
          token_hash: link.tokenHash,
          tenant_id: link.tenantId,
          key_id: link.keyId,
          scope: link.scope,
          ttl_seconds: link.ttlSeconds,
          created_at: now.toISOString(),
          expires_at: link.usableUntil.toISOString(),
          used_at: null,
        })
        .execute();
      const entry = {
        action: 'console.link_created',
        resourceType: 'console_session',
        resourceId: linkId,
      } as const;
      await this.audit.record(trx, link.tenantId, entry, origin, now);
    });
    return { linkId };
  }

  /**
   * Uses the link once: marks it used (a second use finds it used) and opens a new session with
   * the cookie hash `secretHash`. Undefined for an unknown, used or expired link, or one whose key
   * or account no longer may sign in. The session the browser presented (`presentedHash`, its
   * cookie's hash), whatever its account, ends in the same transaction (ASVS 5.0 §7.2.4).
   */
  async redeem(
    tokenHash: string,
    secretHash: string,
    now: Date,
    requestId: string,
    presentedHash?: string,
  ): Promise<ConsoleSessionRecord | undefined> {
    const at = now.toISOString();
    return this.db.transaction().execute(async (trx) => {
      const link = await trx
        .updateTable('console_links')
        .set({ used_at: at })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', at)
        .returning(['id', 'tenant_id', 'key_id', 'scope', 'ttl_seconds'])
        .executeTakeFirst();
      if (!link) return undefined;
      const key = await keyState(trx, link.tenant_id, link.key_id, now);
      if (!key.ok) return undefined;
      if (presentedHash !== undefined) await this.endReplaced(trx, presentedHash, now, requestId);
      const sessionId = newId();
      const expiresAt = new Date(now.getTime() + link.ttl_seconds * 1000).toISOString();
      await trx
        .insertInto('console_sessions')
        .values({
          id: sessionId,
          secret_hash: secretHash,
          link_id: link.id,
          tenant_id: link.tenant_id,
          key_id: link.key_id,
          scope: link.scope,
          mode: key.mode,
          created_at: at,
          last_seen_at: at,
          expires_at: expiresAt,
          ended_at: null,
          ended_reason: null,
        })
        .execute();
      await this.audit.record(
        trx,
        link.tenant_id,
        { action: 'console.signed_in', resourceType: 'console_session', resourceId: sessionId },
        sessionOrigin(sessionId, link.key_id, requestId),
        now,
      );
      return {
        sessionId,
        tenantId: link.tenant_id,
        liveTenantId: key.liveTenantId,
        keyId: link.key_id,
        keyHash: key.keyHash,
        keyMode: key.mode,
        scope: link.scope as ConsoleScope,
        mode: key.mode,
        createdAt: at,
        lastSeenAt: at,
        expiresAt,
      };
    });
  }

  /**
   * Ends the open session a browser presented when it signed in again (reason `replaced`),
   * recorded as that session's `console.signed_out`: its cookie opens nothing from now on.
   */
  private async endReplaced(
    trx: Transaction<Database>,
    secretHash: string,
    now: Date,
    requestId: string,
  ): Promise<void> {
    const ended = await trx
      .updateTable('console_sessions')
      .set({ ended_at: now.toISOString(), ended_reason: 'replaced' })
      .where('secret_hash', '=', secretHash)
      .where('ended_at', 'is', null)
      .returning(['id', 'tenant_id', 'key_id'])
      .executeTakeFirst();
    if (!ended) return;
    await this.audit.record(
      trx,
      ended.tenant_id,
      { action: 'console.signed_out', resourceType: 'console_session', resourceId: ended.id },
      sessionOrigin(ended.id, ended.key_id, requestId),
      now,
    );
  }

  /**
   * The open session the cookie hash names, its idle time counted from its last request; a
   * session past its idle or absolute limit, or whose key was revoked or account deactivated, is
   * ended here (for good: signing in again takes a new link).
   */
  async find(secretHash: string, now: Date, idleMs: number): Promise<ConsoleSessionLookup> {
    const row = await this.db
      .selectFrom('console_sessions')
      .selectAll()
      .where('secret_hash', '=', secretHash)
      .executeTakeFirst();
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.ended_at !== null) return { ok: false, reason: 'ended' };
    const key = await keyState(this.db, row.tenant_id, row.key_id, now);
    const reason: ConsoleSessionEnd | undefined = !key.ok
      ? key.reason
      : Date.parse(iso(row.expires_at)) <= now.getTime()
        ? 'expired'
        : Date.parse(iso(row.last_seen_at)) + idleMs <= now.getTime()
          ? 'idle'
          : undefined;
    if (reason !== undefined || !key.ok) {
      await this.end(row.id, reason ?? 'ended', now);
      return { ok: false, reason: reason ?? 'ended' };
    }
    return {
      ok: true,
      session: {
        sessionId: row.id,
        tenantId: row.tenant_id,
        liveTenantId: key.liveTenantId,
        keyId: row.key_id,
        keyHash: key.keyHash,
        keyMode: key.mode,
        scope: row.scope as ConsoleScope,
        mode: row.mode as ApiMode,
        createdAt: iso(row.created_at),
        lastSeenAt: iso(row.last_seen_at),
        expiresAt: iso(row.expires_at),
      },
    };
  }

  /** Restarts the idle timer. */
  async touch(sessionId: string, now: Date): Promise<void> {
    await this.db
      .updateTable('console_sessions')
      .set({ last_seen_at: now.toISOString() })
      .where('id', '=', sessionId)
      .execute();
  }

  /** Ends the session (a limit reached); ending an ended one keeps the first reason. */
  async end(sessionId: string, reason: string, now: Date): Promise<void> {
    await this.db
      .updateTable('console_sessions')
      .set({ ended_at: now.toISOString(), ended_reason: reason })
      .where('id', '=', sessionId)
      .where('ended_at', 'is', null)
      .execute();
  }

  /** Sign-out: ends the session, audited as the session's own action. */
  async signOut(session: ConsoleSessionRecord, now: Date, requestId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable('console_sessions')
        .set({ ended_at: now.toISOString(), ended_reason: 'signed_out' })
        .where('id', '=', session.sessionId)
        .where('ended_at', 'is', null)
        .execute();
      await this.audit.record(
        trx,
        session.tenantId,
        { action: 'console.signed_out', resourceType: 'console_session', resourceId: session.sessionId },
        sessionOrigin(session.sessionId, session.keyId, requestId),
        now,
      );
    });
  }

  async setMode(sessionId: string, mode: ApiMode): Promise<void> {
    await this.db.updateTable('console_sessions').set({ mode }).where('id', '=', sessionId).execute();
  }

  /** The account a live account's mode is kept in: itself, or its sandbox (none before its first test key). */
  async tenantForMode(liveTenantId: string, mode: ApiMode): Promise<string | undefined> {
    if (mode === 'live') return liveTenantId;
    const row = await this.db
      .selectFrom('tenants')
      .select('id')
      .where('live_tenant_id', '=', liveTenantId)
      .executeTakeFirst();
    return row?.id;
  }

  /** When the session was last ended and why (tests and operators). */
  async ended(sessionId: string): Promise<{ endedAt: string | null; reason: string | null } | undefined> {
    const row = await this.db
      .selectFrom('console_sessions')
      .select(['ended_at', 'ended_reason'])
      .where('id', '=', sessionId)
      .executeTakeFirst();
    return row && { endedAt: isoOrNull(row.ended_at), reason: row.ended_reason };
  }
}

/**
 * A console session as the audit trail names it: the actor `console_session` with the session's
 * id, and the key that asked for its link (none for an operator's link). The correlation id
 * stays the request's own, as the API's: the session's actions are found by the actor's id.
 */
export function sessionOrigin(
  sessionId: string,
  keyId: string | null,
  requestId: string,
  correlationId?: string,
): AuditOrigin {
  return {
    actor: { type: 'console_session', id: sessionId, ...(keyId !== null ? { keyId } : {}) },
    requestId,
    ...(correlationId !== undefined ? { correlationId } : {}),
  };
}

type KeyState =
  | { ok: true; mode: ApiMode; liveTenantId: string; keyHash: string | null }
  | { ok: false; reason: 'key_revoked' | 'inactive' };

/**
 * Whether the key may still act (not revoked or expired; none for an operator's link) and the
 * account (and its live account) is active.
 */
async function keyState(
  db: Kysely<Database>,
  tenantId: string,
  keyId: string | null,
  now: Date,
): Promise<KeyState> {
  let keyHash: string | null = null;
  if (keyId !== null) {
    const key = await db
      .selectFrom('api_keys')
      .select(['revoked_at', 'expires_at', 'key_hash'])
      .where('id', '=', keyId)
      .executeTakeFirst();
    const expiresAt = isoOrNull(key?.expires_at);
    if (!key || key.revoked_at !== null || (expiresAt !== null && Date.parse(expiresAt) <= now.getTime())) {
      return { ok: false, reason: 'key_revoked' };
    }
    keyHash = key.key_hash;
  }
  const row = await db
    .selectFrom('tenants as t')
    .leftJoin('tenants as live', 'live.id', 't.live_tenant_id')
    .select(['t.id', 't.mode', 't.live_tenant_id', 't.active', 'live.active as live_active'])
    .where('t.id', '=', tenantId)
    .executeTakeFirst();
  if (!row || !bool(row.active) || (row.live_active !== null && !bool(row.live_active))) {
    return { ok: false, reason: 'inactive' };
  }
  return { ok: true, mode: row.mode, liveTenantId: row.live_tenant_id ?? row.id, keyHash };
}
