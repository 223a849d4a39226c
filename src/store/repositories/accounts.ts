import { type Kysely, sql } from 'kysely';
import type { Clock } from '../../clock.js';
import type { AuditOrigin } from '../../domain/audit.js';
import { bool, iso, isoOrNull } from '../codec.js';
import type { Database } from '../database.js';
import type { Driver } from '../driver.js';
import { newId } from '../ids.js';
import type { AuditRepository } from './audit.js';

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
  partnerId: string;
  tenantId: string;
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

/** A key as the operator lists it: never the key or its hash. */
export interface KeyListing {
  keyId: string;
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

  async getTenant(tenantId: string): Promise<Tenant | undefined> {
    const row = await this.db.selectFrom('tenants').selectAll().where('id', '=', tenantId).executeTakeFirst();
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
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw new NotFoundError('tenant', tenantId);
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
    const res = await this.db
      .updateTable('tenants')
      .set({ retention_days: days, updated_at: this.clock().toISOString() })
      .where('id', '=', tenantId)
      .executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw new NotFoundError('tenant', tenantId);
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

  async listTenants(): Promise<Array<Tenant & { createdAt: string }>> {
    const rows = await this.db
      .selectFrom('tenants')
      .selectAll()
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
    let query = this.db.selectFrom('partners').selectAll();
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
    const rows = await this.db
      .selectFrom('api_keys')
      .select(['id', 'key_prefix', 'created_at', 'expires_at', 'revoked_at'])
      .where('partner_id', '=', partnerId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((r) => ({
      keyId: r.id,
      prefix: r.key_prefix,
      createdAt: iso(r.created_at),
      expiresAt: isoOrNull(r.expires_at),
      revokedAt: isoOrNull(r.revoked_at),
    }));
  }

  async getPartner(partnerId: string): Promise<Partner | undefined> {
    const row = await this.db
      .selectFrom('partners')
      .selectAll()
      .where('id', '=', partnerId)
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
    },
    origin: AuditOrigin,
  ): Promise<{ keyId: string; expiresAt: string | null }> {
    const partner = await this.requirePartner(input.partnerId);
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
    const row = await this.db
      .selectFrom('api_keys')
      .innerJoin('tenants', 'tenants.id', 'api_keys.tenant_id')
      .select([
        'api_keys.id',
        'api_keys.partner_id',
        'api_keys.tenant_id',
        'api_keys.key_hash',
        'api_keys.expires_at',
        'api_keys.revoked_at',
        'tenants.active',
      ])
      .where('api_keys.key_hash', '=', keyHash)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      keyId: row.id,
      partnerId: row.partner_id,
      tenantId: row.tenant_id,
      keyHash: row.key_hash,
      expiresAt: isoOrNull(row.expires_at),
      revokedAt: isoOrNull(row.revoked_at),
      tenantActive: bool(row.active),
    };
  }

  async authEpoch(): Promise<number> {
    const row = await this.db.selectFrom('auth_state').select('epoch').where('id', '=', 1).executeTakeFirst();
    return Number(row?.epoch ?? 0);
  }
}

async function bumpAuthEpoch(db: Kysely<Database>): Promise<void> {
  await db.updateTable('auth_state').set({ epoch: sql`epoch + 1` }).where('id', '=', 1).execute();
}
