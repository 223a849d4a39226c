import type { AuditAction, AuditOrigin } from '../../domain/audit.js';
import { isoOrNull } from '../codec.js';
import type { Committer } from '../commit-batcher.js';
import type { Driver } from '../driver.js';
import type { Executor } from '../prepared.js';
import type { AuditRepository } from './audit.js';
import type { SecretRecord, WebhooksRepository } from './webhooks.js';

export type EndpointStatus = 'enabled' | 'disabled';

/** One account's callback endpoint as its owner may see it: secrets and the receiver key stay sealed. */
export interface EndpointState {
  partnerId: string;
  url: string;
  status: EndpointStatus;
  disabledAt: string | null;
  disabledReason: string | null;
  /** The first failed attempt since the last delivered one; null while deliveries succeed. */
  failingSince: string | null;
  /** The header the receiver key is sent in; null when no receiver key is registered. */
  receiverKeyHeader: string | null;
  /** Newest first, sealed. */
  secrets: SecretRecord[];
  /** Delivery attempts since the time asked for, by outcome. */
  attempts: { delivered: number; failed: number };
}

/** What a `PUT` (or `webhooks set`) writes: the receiver key sealed by the caller. */
export interface EndpointWrite {
  url: string;
  apiKeySealed: string | null;
  apiKeyHeader: string | null;
}

/**
 * Given the endpoint's secrets (read in the change's transaction), the sealed secret to add, or
 * undefined to keep them. Called once per attempt of the commit unit: the last call is the
 * committed one.
 */
export type SecretPolicy = (existing: SecretRecord[]) => string | undefined;

interface Deps {
  committer: Committer;
  webhooks: WebhooksRepository;
  audit: AuditRepository;
}

/**
 * The callback endpoint of one of an account's partner credentials: every query carries the
 * account's predicate (another account's partner id finds nothing), and every change writes its
 * audit event in its own transaction.
 */
export class TenantWebhookEndpoint {
  constructor(
    private readonly driver: Driver,
    private readonly tenantId: string,
    private readonly deps: Deps,
  ) {}

  /** The endpoint with its secrets and the attempts made since `countsSince`. */
  async state(partnerId: string, countsSince: Date): Promise<EndpointState | undefined> {
    const db = this.driver.db;
    const row = await this.row(db, partnerId);
    if (!row) return undefined;
    const counts = await db
      .selectFrom('webhook_attempts')
      .select(['outcome', (eb) => eb.fn.countAll<number | string>().as('n')])
      .where('partner_id', '=', partnerId)
      .where('kind', '=', 'delivery')
      .where('started_at', '>=', countsSince.toISOString())
      .groupBy('outcome')
      .execute();
    const count = (outcome: string) => Number(counts.find((c) => c.outcome === outcome)?.n ?? 0);
    return {
      partnerId,
      url: row.url,
      status: row.status === 'disabled' ? 'disabled' : 'enabled',
      disabledAt: isoOrNull(row.disabled_at),
      disabledReason: row.disabled_reason,
      failingSince: isoOrNull(row.failing_since),
      receiverKeyHeader: row.api_key_sealed ? (row.api_key_header ?? 'X-Api-Key') : null,
      secrets: await this.deps.webhooks.secrets(db, partnerId),
      attempts: { delivered: count('delivered'), failed: count('failed') },
    };
  }

  /**
   * Creates or replaces the endpoint and enables it (a disabled one starts afresh); adds the
   * secret `secret` asks for. Null when the partner is not this account's.
   */
  async set(
    partnerId: string,
    write: EndpointWrite,
    secret: SecretPolicy,
    origin: AuditOrigin,
    now: Date,
  ): Promise<{ created: boolean; reenabled: boolean } | null> {
    // Commit unit: reads the partner, endpoint and secrets in `trx`; `secret` is called again
    // on a second attempt and the caller keeps the last call's secret.
    return this.deps.committer.submit(
      async (trx) => {
        if (!(await this.ownsPartner(trx, partnerId))) return null;
        const before = await this.row(trx, partnerId);
        await this.deps.webhooks.upsertEndpoint(trx, { ...write, partnerId, tenantId: this.tenantId }, now);
        await this.setStatus(trx, partnerId, 'enabled', now);
        const sealed = secret(await this.deps.webhooks.secrets(trx, partnerId));
        if (sealed !== undefined) await this.deps.webhooks.addSecret(trx, partnerId, sealed, now, now);
        await this.audit(trx, 'webhook.endpoint_set', partnerId, origin, now);
        const reenabled = before?.status === 'disabled';
        if (reenabled) await this.audit(trx, 'webhook.endpoint_enabled', partnerId, origin, now);
        return { created: before === undefined, reenabled };
      },
      { urgent: true },
    );
  }

  /** Adds a signing secret that takes effect at `activatesAt`; false without an endpoint. */
  addSecret(
    partnerId: string,
    sealed: string,
    activatesAt: Date,
    origin: AuditOrigin,
    now: Date,
  ): Promise<boolean> {
    // The secret was made and sealed before.
    return this.change(partnerId, 'webhook.secret_rotated', origin, now, (trx) =>
      this.deps.webhooks.addSecret(trx, partnerId, sealed, activatesAt, now),
    );
  }

  /**
   * Removes the endpoint with its receiver key and signing secrets: no callback is sent any more
   * (events are still recorded, as `failed`/`no_endpoint`). False when there was none.
   */
  remove(partnerId: string, origin: AuditOrigin, now: Date): Promise<boolean> {
    return this.change(partnerId, 'webhook.endpoint_deleted', origin, now, async (trx) => {
      await trx.deleteFrom('webhook_secrets').where('partner_id', '=', partnerId).execute();
      await trx
        .deleteFrom('webhook_endpoints')
        .where('partner_id', '=', partnerId)
        .where('tenant_id', '=', this.tenantId)
        .execute();
    });
  }

  /** Enables the endpoint (its failure clock starts afresh); false when there is none. */
  enable(partnerId: string, origin: AuditOrigin, now: Date): Promise<boolean> {
    return this.change(partnerId, 'webhook.endpoint_enabled', origin, now, (trx) =>
      this.setStatus(trx, partnerId, 'enabled', now),
    );
  }

  /** A change of an existing endpoint with its audit event, in one transaction; false without one. */
  private change(
    partnerId: string,
    action: AuditAction,
    origin: AuditOrigin,
    now: Date,
    write: (trx: Executor) => Promise<void>,
  ): Promise<boolean> {
    // Commit unit: checks and writes through `trx`; a second attempt finds the same rows.
    return this.deps.committer.submit(
      async (trx) => {
        if (!(await this.row(trx, partnerId))) return false;
        await write(trx);
        await this.audit(trx, action, partnerId, origin, now);
        return true;
      },
      { urgent: true },
    );
  }

  /** Records that the endpoint was read (before it is answered). */
  read(partnerId: string, origin: AuditOrigin, now: Date): Promise<void> {
    // Commit unit: one insert through `trx`.
    return this.deps.committer.submit(
      (trx) => this.audit(trx, 'webhook.endpoint_read', partnerId, origin, now),
      {
        urgent: true,
      },
    );
  }

  /**
   * The credential of this account whose endpoint a console session manages: the one of the key
   * that made its link (its sandbox credential when this is the sandbox), else the account's
   * oldest. Undefined when the account has no credential.
   */
  async credentialFor(keyId: string | null): Promise<string | undefined> {
    const db = this.driver.db;
    const key =
      keyId === null
        ? undefined
        : await db
            .selectFrom('api_keys')
            .innerJoin('partners as p', 'p.id', 'api_keys.partner_id')
            .select(['p.id', 'p.live_partner_id'])
            .where('api_keys.id', '=', keyId)
            .executeTakeFirst();
    const live = key ? (key.live_partner_id ?? key.id) : undefined;
    let query = db
      .selectFrom('partners')
      .select('id')
      .where('tenant_id', '=', this.tenantId)
      .orderBy('created_at')
      .orderBy('id');
    if (live !== undefined) {
      query = query.where((eb) => eb.or([eb('id', '=', live), eb('live_partner_id', '=', live)]));
    }
    return (await query.executeTakeFirst())?.id;
  }

  private row(db: Executor, partnerId: string) {
    return db
      .selectFrom('webhook_endpoints')
      .select([
        'url',
        'status',
        'disabled_at',
        'disabled_reason',
        'failing_since',
        'api_key_sealed',
        'api_key_header',
      ])
      .where('partner_id', '=', partnerId)
      .where('tenant_id', '=', this.tenantId)
      .executeTakeFirst();
  }

  private async ownsPartner(db: Executor, partnerId: string): Promise<boolean> {
    const row = await db
      .selectFrom('partners')
      .select('id')
      .where('id', '=', partnerId)
      .where('tenant_id', '=', this.tenantId)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Enabled clears the disabling and the failure clock: the endpoint starts afresh. */
  private async setStatus(trx: Executor, partnerId: string, status: 'enabled', now: Date): Promise<void> {
    await trx
      .updateTable('webhook_endpoints')
      .set({
        status,
        disabled_at: null,
        disabled_reason: null,
        failing_since: null,
        updated_at: now.toISOString(),
      })
      .where('partner_id', '=', partnerId)
      .where('tenant_id', '=', this.tenantId)
      .execute();
  }

  private audit(trx: Executor, action: AuditAction, partnerId: string, origin: AuditOrigin, now: Date) {
    return this.deps.audit.record(
      trx,
      this.tenantId,
      { action, resourceType: 'webhook_endpoint', resourceId: partnerId },
      origin,
      now,
    );
  }
}
