import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { AuditOrigin } from '../domain/audit.js';
import type { ApiMode } from '../domain/mode.js';
import type { SecretBox } from '../secret-box.js';
import type { SystemStore } from '../store/index.js';
import type { Executor } from '../store/prepared.js';
import { NotFoundError } from '../store/repositories/accounts.js';
import { checkCallbackUrl, type Resolver, resolveAllowed } from './guard.js';
import { DELIVER_KIND, deliveryJob, eventIdFor, recordResultReady } from './outbox.js';
import { activeSecret, apiKeyContext, secretContext, secretInEffect } from './secrets.js';
import { generateSigningSecret } from './signing.js';

/** A request the operator can fix (unknown id, forbidden URL): reported as is, exit 1. */
export class WebhookAdminError extends Error {}

/** Header names a receiver key may not take: they carry the delivery itself. */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'host',
  'user-agent',
  'connection',
  'transfer-encoding',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;

export interface WebhookAdminOptions {
  allowInsecure: boolean;
  /** The time registrations, rotations and redeliveries are stamped with. */
  clock: Clock;
  scheduleMs: number[];
  /** DNS for the registration check; the system resolver unless a test supplies one. */
  resolve?: Resolver;
  /** Whose changes these are, for the audit trail: an operator's command unless given. */
  origin?: AuditOrigin;
}

/**
 * The operator's side of callbacks (the `webhooks` CLI commands): registration with the
 * request-forgery guard, secrets generated here and stored sealed, rotation with an activation
 * time, redelivery and the attempt log.
 */
export class WebhookAdmin {
  private readonly origin: AuditOrigin;

  constructor(
    private readonly store: SystemStore,
    private readonly box: SecretBox,
    private readonly o: WebhookAdminOptions,
  ) {
    this.origin = o.origin ?? { actor: { type: 'operator' }, requestId: randomUUID() };
  }

  async set(
    partnerId: string,
    url: string,
    opts: { apiKey?: string | undefined; apiKeyHeader?: string | undefined; mode?: ApiMode },
  ): Promise<{ partnerId: string; mode: ApiMode; url: string; signingSecret: string }> {
    const now = this.now();
    const mode = opts.mode ?? 'live';
    const live = await this.store.accounts.requirePartner(partnerId);
    const checked = checkCallbackUrl(url, { allowInsecure: this.o.allowInsecure });
    if (!checked.ok) throw new WebhookAdminError(this.withInsecureHint(checked.reason));
    const resolved = await resolveAllowed(checked.url.hostname, {
      allowInsecure: this.o.allowInsecure,
      ...(this.o.resolve ? { lookup: this.o.resolve } : {}),
    });
    if (!resolved.ok) throw new WebhookAdminError(this.withInsecureHint(resolved.reason));
    if (opts.apiKeyHeader !== undefined) {
      const name = opts.apiKeyHeader;
      if (!TOKEN.test(name) || RESERVED_HEADERS.has(name.toLowerCase()) || /^x-healthspan-/i.test(name)) {
        throw new WebhookAdminError(`--api-key-header "${name}" is not a header name a receiver key can use`);
      }
      if (opts.apiKey === undefined) throw new WebhookAdminError('--api-key-header needs --api-key');
    }
    if (opts.apiKey !== undefined && !/^[\x21-\x7e]{1,1024}$/.test(opts.apiKey)) {
      throw new WebhookAdminError('--api-key must be 1 to 1024 printable characters without spaces');
    }
    const href = checked.url.href;
    // A test endpoint belongs to the credential's sandbox, made on first use.
    const partner =
      mode === 'test' ? await this.store.accounts.sandboxPartner(partnerId, { create: true }) : live;
    const id = partner.partnerId;
    // Commit unit: reads the secrets in `trx`; a secret a first attempt made was rolled back
    // with it, and the one returned is the committed attempt's.
    return this.store.batcher.submit(async (trx) => {
      await this.store.webhooks.upsertEndpoint(
        trx,
        {
          partnerId: id,
          tenantId: partner.tenantId,
          url: href,
          apiKeySealed: opts.apiKey === undefined ? null : this.box.seal(opts.apiKey, apiKeyContext(id)),
          apiKeyHeader: opts.apiKey === undefined ? null : (opts.apiKeyHeader ?? null),
        },
        now,
      );
      await this.audit(trx, partner.tenantId, 'webhook.endpoint_set', id, now);
      // Changing the URL keeps the secret the receiver already has; a first registration makes one.
      let secret = activeSecret(this.box, id, await this.store.webhooks.secrets(trx, id), now);
      if (!secret) {
        secret = generateSigningSecret();
        await this.store.webhooks.addSecret(trx, id, this.box.seal(secret, secretContext(id)), now, now);
      }
      return { partnerId, mode, url: href, signingSecret: secret };
    });
  }

  async rotateSecret(
    partnerId: string,
    activateInMs: number,
    mode: ApiMode = 'live',
  ): Promise<{ partnerId: string; mode: ApiMode; signingSecret: string; activatesAt: string }> {
    const now = this.now();
    const partner = await this.store.accounts.partnerForMode(partnerId, mode);
    const id = partner.partnerId;
    if (!(await this.store.webhooks.endpoint(this.store.db, id))) {
      throw new WebhookAdminError(
        `partner ${partnerId} has no ${mode} callback registered; use webhooks set${mode === 'test' ? ' --mode test' : ''} first`,
      );
    }
    const secret = generateSigningSecret();
    const activatesAt = new Date(now.getTime() + activateInMs);
    // Commit unit: the secret was made before; it is sealed and written through `trx`.
    await this.store.batcher.submit(async (trx) => {
      await this.store.webhooks.addSecret(
        trx,
        id,
        this.box.seal(secret, secretContext(id)),
        activatesAt,
        now,
      );
      await this.audit(trx, partner.tenantId, 'webhook.secret_rotated', id, now);
    });
    return { partnerId, mode, signingSecret: secret, activatesAt: activatesAt.toISOString() };
  }

  /**
   * Sends a result's event again now, with the same event id (receivers deduplicate on it): a
   * delivery still waiting for its next scheduled attempt has that attempt brought forward;
   * otherwise a new delivery starts the schedule from the first step. A result completed before
   * its partner registered a callback gets its event now.
   */
  async redeliver(resultId: string): Promise<{ resultId: string; eventId: string }> {
    const sent = await this.resend(resultId);
    if (sent.ok) return { resultId, eventId: sent.eventId };
    if (sent.reason === 'not_found') throw new NotFoundError('result', resultId);
    throw new WebhookAdminError(
      sent.reason === 'not_ready'
        ? `result ${resultId} is not ready yet`
        : `the partner of result ${resultId} has no callback registered`,
    );
  }

  /**
   * `redeliver` for a caller that may only reach one account's results (`tenantId`; the test
   * events route), audited as `origin` (the operator's unless given).
   */
  async resend(
    resultId: string,
    scope: { tenantId?: string; origin?: AuditOrigin } = {},
  ): Promise<
    { ok: true; eventId: string } | { ok: false; reason: 'not_found' | 'not_ready' | 'no_endpoint' }
  > {
    const now = this.now();
    const db = this.store.db;
    const row = await this.store.webhooks.resultSource(db, resultId, scope.tenantId);
    if (!row) return { ok: false, reason: 'not_found' };
    if (row.status !== 'completed') return { ok: false, reason: 'not_ready' };
    const endpoint = await this.store.webhooks.endpoint(db, row.partnerId);
    if (!endpoint) return { ok: false, reason: 'no_endpoint' };
    const audit = (trx: Executor, eventId: string) =>
      this.audit(trx, endpoint.tenantId, 'webhook.redelivered', eventId, now, scope.origin);
    const policy = { scheduleMs: this.o.scheduleMs };
    const ids = { correlationId: row.correlationId, requestId: row.requestId };
    // Commit unit: decides from the event and delivery it reads in `trx`; the event id is its
    // return value.
    const eventId = await this.store.batcher.submit(async (trx) => {
      const existing = await this.store.webhooks.eventForResult(trx, resultId);
      if (!existing) {
        const created = await recordResultReady(
          this.store,
          trx,
          { submissionId: row.submissionId, now, ids, policy },
          async (job) => {
            await this.store.jobs.enqueue(trx, job, now);
          },
        );
        const id = created ?? eventIdFor(resultId);
        await audit(trx, id);
        return id;
      }
      await audit(trx, existing.id);
      await this.store.webhooks.setEventStatus(trx, existing.id, 'pending', now);
      // A delivery waiting for its next attempt is brought forward rather than doubled.
      // Otherwise (none, or one in the middle of an attempt that may yet fail) a new job starts
      // the schedule again; receivers deduplicate on the event id.
      const waiting = await this.store.jobs.findWaiting(trx, DELIVER_KIND, 'eventId', existing.id);
      if (waiting) {
        await this.store.jobs.runNow(trx, waiting, now);
        return existing.id;
      }
      await this.store.jobs.enqueue(
        trx,
        deliveryJob({ ...existing, submissionId: row.submissionId }, now, policy, ids),
        now,
      );
      return existing.id;
    });
    this.store.notifier.notify();
    return { ok: true, eventId };
  }

  /** The operator's change, in the transaction that makes it. */
  private audit(
    trx: Executor,
    tenantId: string,
    action: 'webhook.endpoint_set' | 'webhook.secret_rotated' | 'webhook.redelivered',
    resourceId: string,
    now: Date,
    origin: AuditOrigin = this.origin,
  ): Promise<void> {
    const resourceType = action === 'webhook.redelivered' ? 'webhook_event' : 'webhook_endpoint';
    return this.store.audit.record(trx, tenantId, { action, resourceType, resourceId }, origin, now);
  }

  private now(): Date {
    return this.o.clock();
  }

  /** An operator trying a local receiver needs to know the switch exists (and what it is for). */
  private withInsecureHint(reason: string): string {
    if (this.o.allowInsecure) return reason;
    return `${reason} For a local receiver in development only, set WEBHOOK_ALLOW_INSECURE=true (http:// and private addresses).`;
  }

  /** The partner's callback as the operator sees it: never the signing secrets or receiver key. */
  async show(partnerId: string, mode: ApiMode = 'live') {
    const now = this.now();
    const id = (await this.store.accounts.partnerForMode(partnerId, mode)).partnerId;
    const db = this.store.db;
    const endpoint = await this.store.webhooks.endpoint(db, id);
    const secrets = await this.store.webhooks.secrets(db, id);
    // Active: the one secret deliveries are signed with now (not one rotated out, nor one
    // waiting for its activation time).
    const inEffect = secretInEffect(secrets, now);
    return {
      partnerId,
      mode,
      url: endpoint?.url ?? null,
      receiverKey: endpoint?.apiKeySealed ? { header: endpoint.apiKeyHeader ?? 'X-Api-Key' } : null,
      signingSecrets: secrets.map((s) => ({
        secretId: s.id,
        activatesAt: s.activatesAt,
        active: s.id === inEffect?.id,
      })),
    };
  }

  async deliveries(partnerId: string, limit: number, mode: ApiMode = 'live') {
    const id = (await this.store.accounts.partnerForMode(partnerId, mode)).partnerId;
    const events = await this.store.webhooks.deliveries(id, limit);
    return {
      partnerId,
      mode,
      deliveries: events.map((e) => ({
        eventId: e.id,
        resultId: e.resultId,
        status: e.status,
        createdAt: e.createdAt,
        deliveredAt: e.deliveredAt,
        attempts: e.attempts.map((a) => ({
          deliveryId: a.deliveryId,
          attempt: a.attempt,
          at: a.startedAt,
          url: a.url,
          statusCode: a.statusCode,
          latencyMs: a.latencyMs,
          errorClass: a.errorClass,
          outcome: a.outcome,
        })),
      })),
    };
  }
}
