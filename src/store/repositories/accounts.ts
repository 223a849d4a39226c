import { type Kysely, sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { AuditOrigin } from '../../domain/audit.js';
import type { ApiMode } from '../../domain/mode.js';
import { bool, iso, isoOrNull } from '../codec.js';
import type { Database } from '../database.js';
import type { Driver } from '../driver.js';
import { newId } from '../ids.js';
import type { AuditRepository } from './audit.js';
import { holdWaitingJobs, releaseHeldJobs } from './held-jobs.js';

export interface Tenant {
  tenantId: string;
  name: string;
  active: boolean;
}

/** An operator's command: every change it makes is audited as the operator's. */
export function operatorOrigin(requestId: string): AuditOrigin {
  return { actor: { type: 'operator' }, requestId };
}

export interface Partner {
  partnerId: string;
  tenantId: string;
  name: string;
}

export interface StoredKey {
  keyId: string;
  /** The credential the key and its data belong to: a sandbox credential for a test key. */
  partnerId: string;
  /** The id submission bodies name: the live credential's, in both modes. */
  namedPartnerId: string;
  tenantId: string;
  mode: ApiMode;
  keyHash: string;
  expiresAt: string | null;
  revokedAt: string | null;
  tenantActive: boolean;
}

/** An id the operator named does not exist: one message form for every kind. */
export class NotFoundError extends Error {
  constructor(kind: 'tenant' | 'partner' | 'API key' | 'result' | 'erasure', id: string) {
    super(`no ${kind} with id ${id}`);
  }
}

/** A test-mode command for an account or credential that has no sandbox yet. */
export class NoSandboxError extends Error {
  constructor(kind: 'tenant' | 'partner', id: string) {
    super(`${kind} ${id} has no test mode yet; "healthspan-admin keys create --mode test" starts it`);
  }
}

/** A key as the operator lists it: never the key or its hash. */
export interface KeyListing {
  keyId: string;
  mode: ApiMode;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

/**
 * Operator-side access to tenants, partner credentials and keys. Unscoped by design: only the
 * CLI and the authentication layer use it, never a route handler.
 */
export class AccountsRepository {
  private readonly db: Kysely<Database>;

  constructor(
    private readonly driver: Driver,
    private readonly clock: Clock,
    private readonly audit: AuditRepository,
  ) {
    this.db = driver.db;
  }

  async createTenant(name: string): Promise<Tenant> {
    const now = this.clock();
    const tenantId = newId();
    const ts = now.toISOString();
    await this.db
      .insertInto('tenants')
      .values({ id: tenantId, name, active: this.driver.bool(true), created_at: ts, updated_at: ts })
      .execute();
    return { tenantId, name, active: true };
  }

  /** A live account (the ids operators know). */
  async getTenant(tenantId: string): Promise<Tenant | undefined> {
    const row = await this.db
      .selectFrom('tenants')
      .selectAll()
      .where('id', '=', tenantId)
      .where('mode', '=', 'live')
      .executeTakeFirst();
    return row && { tenantId: row.id, name: row.name, active: bool(row.active) };
  }

  /** The tenant, or `NotFoundError` for an id that does not exist. */
  async requireTenant(tenantId: string): Promise<Tenant> {
    const tenant = await this.getTenant(tenantId);
    if (!tenant) throw new NotFoundError('tenant', tenantId);
    return tenant;
  }

  async setTenantActive(tenantId: string, active: boolean, origin: AuditOrigin): Promise<Tenant> {
    const now = this.clock();
    return this.db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable('tenants')
        .set({ active: this.driver.bool(active), updated_at: now.toISOString() })
        .where('id', '=', tenantId)
        .where('mode', '=', 'live')
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw new NotFoundError('tenant', tenantId);
      await (active ? releaseHeldJobs : holdWaitingJobs)(trx, tenantId, now);
      await bumpAuthEpoch(trx);
      await this.audit.record(
        trx,
        tenantId,
        {
          action: active ? 'tenant.activated' : 'tenant.deactivated',
          resourceType: 'tenant',
          resourceId: tenantId,
        },
        origin,
        now,
      );
      const row = await trx
        .selectFrom('tenants')
        .selectAll()
        .where('id', '=', tenantId)
        .executeTakeFirstOrThrow();
      return { tenantId: row.id, name: row.name, active: bool(row.active) };
    });
  }

  /**
   * The account's retention period in days (0: kept until erased), or null to follow the
   * service's RETENTION_DAYS.
   */
  async setRetention(
    tenantId: string,
    days: number | null,
  ): Promise<{ tenantId: string; retentionDays: number | null }> {
    await this.requireTenant(tenantId);
    // The account's sandbox keeps its data as long.
    await this.db
      .updateTable('tenants')
      .set({ retention_days: days, updated_at: this.clock().toISOString() })
      .where((eb) => eb.or([eb('id', '=', tenantId), eb('live_tenant_id', '=', tenantId)]))
      .execute();
    return { tenantId, retentionDays: days };
  }

  /** Every account's retention override (null: the service's default applies). */
  async retentionOverrides(): Promise<Array<{ tenantId: string; retentionDays: number | null }>> {
    const rows = await this.db.selectFrom('tenants').select(['id', 'retention_days']).execute();
    return rows.map((r) => ({ tenantId: r.id, retentionDays: r.retention_days }));
  }

  async createPartner(tenantId: string, name: string): Promise<Partner> {
    const now = this.clock();
    await this.requireTenant(tenantId);
    const partnerId = newId();
    await this.db
      .insertInto('partners')
      .values({ id: partnerId, tenant_id: tenantId, name, created_at: now.toISOString() })
      .execute();
    return { partnerId, tenantId, name };
  }

  /** Every account's id, sandbox accounts included (what a restore or an override records itself in). */
  async allTenantIds(): Promise<string[]> {
    const rows = await this.db.selectFrom('tenants').select('id').execute();
    return rows.map((r) => r.id);
  }

  async listTenants(): Promise<Array<Tenant & { createdAt: string }>> {
    const rows = await this.db
      .selectFrom('tenants')
      .selectAll()
      .where('mode', '=', 'live')
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      tenantId: r.id,
      name: r.name,
      active: bool(r.active),
      createdAt: iso(r.created_at),
    }));
  }

  /** Partner credentials, of one account when `tenantId` is given (which must exist). */
  async listPartners(tenantId?: string): Promise<Array<Partner & { createdAt: string }>> {
    if (tenantId !== undefined) await this.requireTenant(tenantId);
    let query = this.db.selectFrom('partners').selectAll().where('live_partner_id', 'is', null);
    if (tenantId !== undefined) query = query.where('tenant_id', '=', tenantId);
    const rows = await query.orderBy('created_at').orderBy('id').execute();
    return rows.map((r) => ({
      partnerId: r.id,
      tenantId: r.tenant_id,
      name: r.name,
      createdAt: iso(r.created_at),
    }));
  }

  async listKeys(partnerId: string): Promise<KeyListing[]> {
    await this.requirePartner(partnerId);
    // Live and test keys together: the operator manages one credential.
    const rows = await this.db
      .selectFrom('api_keys')
      .innerJoin('partners', 'partners.id', 'api_keys.partner_id')
      .select([
        'api_keys.id',
        'api_keys.key_prefix',
        'api_keys.created_at',
        'api_keys.expires_at',
        'api_keys.revoked_at',
        'partners.live_partner_id',
      ])
      .where((eb) =>
        eb.or([eb('partners.id', '=', partnerId), eb('partners.live_partner_id', '=', partnerId)]),
      )
      .orderBy('api_keys.created_at')
      .orderBy('api_keys.id')
      .execute();
    return rows.map((r) => ({
      keyId: r.id,
      mode: r.live_partner_id === null ? ('live' as const) : ('test' as const),
      prefix: r.key_prefix,
      createdAt: iso(r.created_at),
      expiresAt: isoOrNull(r.expires_at),
      revokedAt: isoOrNull(r.revoked_at),
    }));
  }

  /** A live credential (the ids operators and partners know). */
  async getPartner(partnerId: string): Promise<Partner | undefined> {
    const row = await this.db
      .selectFrom('partners')
      .selectAll()
      .where('id', '=', partnerId)
      .where('live_partner_id', 'is', null)
      .executeTakeFirst();
    return row && { partnerId: row.id, tenantId: row.tenant_id, name: row.name };
  }

  /** The partner credential, or `NotFoundError` for an id that does not exist. */
  async requirePartner(partnerId: string): Promise<Partner> {
    const partner = await this.getPartner(partnerId);
    if (!partner) throw new NotFoundError('partner', partnerId);
    return partner;
  }

  async insertKey(
    input: {
      partnerId: string;
      keyHash: string;
      keyPrefix: string;
      expiresAt: Date | null;
      mode: ApiMode;
    },
    origin: AuditOrigin,
  ): Promise<{ keyId: string; expiresAt: string | null }> {
    const partner =
      input.mode === 'test'
        ? await this.sandboxPartner(input.partnerId, { create: true })
        : await this.requirePartner(input.partnerId);
    const keyId = newId();
    const expiresAt = input.expiresAt ? input.expiresAt.toISOString() : null;
    const now = this.clock();
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('api_keys')
        .values({
          id: keyId,
          partner_id: partner.partnerId,
          tenant_id: partner.tenantId,
          key_hash: input.keyHash,
          key_prefix: input.keyPrefix,
          created_at: now.toISOString(),
          expires_at: expiresAt,
          revoked_at: null,
        })
        .execute();
      await this.audit.record(
        trx,
        partner.tenantId,
        { action: 'key.created', resourceType: 'api_key', resourceId: keyId },
        origin,
        now,
      );
    });
    return { keyId, expiresAt };
  }

  async revokeKey(keyId: string, origin: AuditOrigin): Promise<{ keyId: string; revokedAt: string }> {
    const now = this.clock();
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .selectFrom('api_keys')
        .select(['revoked_at', 'tenant_id'])
        .where('id', '=', keyId)
        .executeTakeFirst();
      if (!row) throw new NotFoundError('API key', keyId);
      // Revoking twice keeps the first revocation time (and its one audit event).
      if (row.revoked_at !== null) return { keyId, revokedAt: iso(row.revoked_at) };
      const revokedAt = now.toISOString();
      await trx.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).execute();
      await bumpAuthEpoch(trx);
      await this.audit.record(
        trx,
        row.tenant_id,
        { action: 'key.revoked', resourceType: 'api_key', resourceId: keyId },
        origin,
        now,
      );
      return { keyId, revokedAt };
    });
  }

  async findKeyByHash(keyHash: string): Promise<StoredKey | undefined> {
    // A sandbox is as active as its live account: deactivating the account stops both modes.
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('partners as p', 'p.id', 'api_keys.partner_id')
      .innerJoin('tenants as t', 't.id', 'api_keys.tenant_id')
      .leftJoin('tenants as live', 'live.id', 't.live_tenant_id')
      .select([
        'api_keys.id',
        'api_keys.partner_id',
        'api_keys.tenant_id',
        'api_keys.key_hash',
        'api_keys.expires_at',
        'api_keys.revoked_at',
        'p.live_partner_id',
        't.mode',
        't.active',
        'live.active as live_active',
      ])
      .where('api_keys.key_hash', '=', keyHash)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      keyId: row.id,
      partnerId: row.partner_id,
      namedPartnerId: row.live_partner_id ?? row.partner_id,
      tenantId: row.tenant_id,
      mode: row.mode,
      keyHash: row.key_hash,
      expiresAt: isoOrNull(row.expires_at),
      revokedAt: isoOrNull(row.revoked_at),
      tenantActive: bool(row.active) && (row.live_active === null || bool(row.live_active)),
    };
  }

  /**
   * The sandbox credential of a live one (its test keys, submissions and callback), in the
   * account's sandbox; with `create`, both are made on first use.
   */
  async sandboxPartner(partnerId: string, opts: { create: boolean }): Promise<Partner> {
    const live = await this.requirePartner(partnerId);
    const found = await this.db
      .selectFrom('partners')
      .select(['id', 'tenant_id', 'name'])
      .where('live_partner_id', '=', partnerId)
      .executeTakeFirst();
    if (found) return { partnerId: found.id, tenantId: found.tenant_id, name: found.name };
    if (!opts.create) throw new NoSandboxError('partner', partnerId);
    const tenantId = await this.sandboxTenant(live.tenantId, { create: true });
    const now = this.clock().toISOString();
    const sandboxId = newId();
    await this.db
      .insertInto('partners')
      .values({
        id: sandboxId,
        tenant_id: tenantId,
        name: live.name,
        live_partner_id: partnerId,
        created_at: now,
      })
      .onConflict((oc) => oc.column('live_partner_id').doNothing())
      .execute();
    // Made concurrently by another command, the other one is the credential's sandbox.
    return this.sandboxPartner(partnerId, { create: false });
  }

  /** The id of a live account's sandbox; with `create`, made on first use. */
  async sandboxTenant(tenantId: string, opts: { create: boolean }): Promise<string> {
    const live = await this.db
      .selectFrom('tenants')
      .select(['id', 'name', 'retention_days'])
      .where('id', '=', tenantId)
      .where('mode', '=', 'live')
      .executeTakeFirst();
    if (!live) throw new NotFoundError('tenant', tenantId);
    const found = await this.db
      .selectFrom('tenants')
      .select('id')
      .where('live_tenant_id', '=', tenantId)
      .executeTakeFirst();
    if (found) return found.id;
    if (!opts.create) throw new NoSandboxError('tenant', tenantId);
    const now = this.clock().toISOString();
    await this.db
      .insertInto('tenants')
      .values({
        id: newId(),
        name: live.name,
        // Its keys are refused whenever the live account is (findKeyByHash).
        active: this.driver.bool(true),
        retention_days: live.retention_days,
        mode: 'test',
        live_tenant_id: tenantId,
        created_at: now,
        updated_at: now,
      })
      .onConflict((oc) => oc.column('live_tenant_id').doNothing())
      .execute();
    return this.sandboxTenant(tenantId, { create: false });
  }

  /** The account a command of this mode works on: the live one, or its sandbox. */
  async tenantForMode(tenantId: string, mode: ApiMode): Promise<string> {
    if (mode === 'test') return this.sandboxTenant(tenantId, { create: false });
    return (await this.requireTenant(tenantId)).tenantId;
  }

  /** The credential a command of this mode works on: the live one, or its sandbox. */
  async partnerForMode(partnerId: string, mode: ApiMode): Promise<Partner> {
    if (mode === 'test') return this.sandboxPartner(partnerId, { create: false });
    return this.requirePartner(partnerId);
  }

  async authEpoch(): Promise<number> {
    const row = await this.db.selectFrom('auth_state').select('epoch').where('id', '=', 1).executeTakeFirst();
    return Number(row?.epoch ?? 0);
  }
}

async function bumpAuthEpoch(db: Kysely<Database>): Promise<void> {
  await db.updateTable('auth_state').set({ epoch: sql`epoch + 1` }).where('id', '=', 1).execute();
}
