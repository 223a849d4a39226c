import type { ExpressionBuilder, Kysely } from 'kysely';
import type { AuditOrigin } from '../../domain/audit.js';
import type { ApiMode } from '../../domain/mode.js';
import { iso, isoOrNull } from '../codec.js';
import type { Database } from '../database.js';
import type { AccountsRepository, KeyListing } from './accounts.js';

/** A key to issue: made (and shown once) by the caller, stored here as its hash and prefix. */
export interface NewAccountKey {
  mode: ApiMode;
  keyHash: string;
  keyPrefix: string;
  expiresAt: Date | null;
  /** The new key joins this key's credential when it is the account's (else its first one). */
  credentialOf: string | null;
}

/** Why a key was not issued: a sandbox's access issues test keys only. */
export type KeyCreateOutcome =
  | { ok: true; keyId: string; mode: ApiMode; expiresAt: string | null }
  | { ok: false; reason: 'live_from_test' | 'no_credential' };

/**
 * The API keys of one account, for the partner's own view (the console): a live account's access
 * sees the keys of both its modes, a sandbox's access only its own. Issuing and revoking are the
 * operator's `AccountsRepository` commands (audited `key.created` / `key.revoked`), reached only
 * for keys and credentials this account owns.
 */
export class TenantKeys {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly tenantId: string,
    private readonly accounts: AccountsRepository,
  ) {}

  /** The rows of this account and (for a live one) its sandbox. */
  private owned() {
    const tenantId = this.tenantId;
    return (eb: ExpressionBuilder<Database & { t: Database['tenants'] }, 't'>) =>
      eb.or([eb('t.id', '=', tenantId), eb('t.live_tenant_id', '=', tenantId)]);
  }

  /** Newest first; never the key or its hash. */
  async list(): Promise<KeyListing[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .innerJoin('tenants as t', 't.id', 'api_keys.tenant_id')
      .select([
        'api_keys.id',
        'api_keys.key_prefix',
        'api_keys.created_at',
        'api_keys.expires_at',
        'api_keys.revoked_at',
        't.mode',
      ])
      .where(this.owned())
      .orderBy('api_keys.created_at', 'desc')
      .orderBy('api_keys.id', 'desc')
      .execute();
    return rows.map((r) => ({
      keyId: r.id,
      mode: r.mode,
      prefix: r.key_prefix,
      createdAt: iso(r.created_at),
      expiresAt: isoOrNull(r.expires_at),
      revokedAt: isoOrNull(r.revoked_at),
    }));
  }

  async create(input: NewAccountKey, origin: AuditOrigin): Promise<KeyCreateOutcome> {
    const account = await this.db
      .selectFrom('tenants')
      .select('mode')
      .where('id', '=', this.tenantId)
      .executeTakeFirst();
    if (account?.mode !== 'live' && input.mode === 'live') return { ok: false, reason: 'live_from_test' };
    const partnerId = await this.credential(input.credentialOf);
    if (partnerId === undefined) return { ok: false, reason: 'no_credential' };
    const stored = await this.accounts.insertKey(
      {
        partnerId,
        keyHash: input.keyHash,
        keyPrefix: input.keyPrefix,
        expiresAt: input.expiresAt,
        mode: input.mode,
      },
      origin,
    );
    return { ok: true, keyId: stored.keyId, mode: input.mode, expiresAt: stored.expiresAt };
  }

  /** Revokes one of this account's keys; undefined for a key that is not (or does not exist). */
  async revoke(
    keyId: string,
    origin: AuditOrigin,
  ): Promise<{ keyId: string; revokedAt: string } | undefined> {
    const owned = await this.db
      .selectFrom('api_keys')
      .innerJoin('tenants as t', 't.id', 'api_keys.tenant_id')
      .select('api_keys.id')
      .where('api_keys.id', '=', keyId)
      .where(this.owned())
      .executeTakeFirst();
    if (!owned) return undefined;
    return this.accounts.revokeKey(keyId, origin);
  }

  /** The live credential a new key belongs to: the named key's, else the account's oldest. */
  private async credential(keyId: string | null): Promise<string | undefined> {
    if (keyId !== null) {
      const row = await this.db
        .selectFrom('api_keys')
        .innerJoin('tenants as t', 't.id', 'api_keys.tenant_id')
        .innerJoin('partners as p', 'p.id', 'api_keys.partner_id')
        .select(['p.id', 'p.live_partner_id'])
        .where('api_keys.id', '=', keyId)
        .where(this.owned())
        .executeTakeFirst();
      if (row) return row.live_partner_id ?? row.id;
    }
    const first = await this.db
      .selectFrom('partners as p')
      .innerJoin('tenants as t', 't.id', 'p.tenant_id')
      .select(['p.id', 'p.live_partner_id'])
      .where(this.owned())
      .orderBy('p.created_at')
      .orderBy('p.id')
      .executeTakeFirst();
    return first ? (first.live_partner_id ?? first.id) : undefined;
  }
}
