import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { AuditOrigin } from '../domain/audit.js';
import type { ApiMode } from '../domain/mode.js';
import {
  type EndpointField,
  EndpointInputError,
  type EndpointOwner,
  WebhookEndpoints,
} from '../operations/callback-endpoint.js';
import type { SecretBox } from '../secret-box.js';
import type { SystemStore } from '../store/index.js';
import type { Executor } from '../store/prepared.js';
import { NotFoundError } from '../store/repositories/accounts.js';
import type { TenantGateway } from '../store/tenant-access.js';
import type { Resolver } from './guard.js';
import { DELIVER_KIND, deliveryJob, eventIdFor, recordResultReady } from './outbox.js';

/** The command's flag for each field the endpoint service may refuse. */
const FLAGS: Readonly<Record<EndpointField, string>> = {
  url: '--url',
  'receiverKey.header': '--api-key-header',
  'receiverKey.value': '--api-key',
};

/** A request the operator can fix (unknown id, forbidden URL): reported as is, exit 1. */
export class WebhookAdminError extends Error {}

export interface WebhookAdminOptions {
  allowInsecure: boolean;
  /** The time registrations, rotations and redeliveries are stamped with. */
  clock: Clock;
  scheduleMs: number[];
  /** DNS for the registration check; the system resolver unless a test supplies one. */
  resolve?: Resolver;
  /** Whose changes these are, for the audit trail: an operator's command unless given. */
  origin?: AuditOrigin;
  /** An account's scoped access: the endpoint is managed through it, as the API does. */
  tenants: TenantGateway;
}

/**
 * The operator's side of callbacks (the `webhooks` CLI commands): registration with the
 * request-forgery guard, secrets generated here and stored sealed, rotation with an activation
 * time, redelivery and the attempt log.
 */
export class WebhookAdmin {
  private readonly origin: AuditOrigin;
  private readonly endpoints: WebhookEndpoints;

  constructor(
    private readonly store: SystemStore,
    box: SecretBox,
    private readonly o: WebhookAdminOptions,
  ) {
    this.origin = o.origin ?? { actor: { type: 'operator' }, requestId: randomUUID() };
    this.endpoints = new WebhookEndpoints(box, {
      allowInsecure: o.allowInsecure,
      clock: o.clock,
      ...(o.resolve ? { resolve: o.resolve } : {}),
    });
  }

  async set(
    partnerId: string,
    url: string,
    opts: { apiKey?: string | undefined; apiKeyHeader?: string | undefined; mode?: ApiMode },
  ): Promise<{ partnerId: string; mode: ApiMode; url: string; signingSecret: string }> {
    const mode = opts.mode ?? 'live';
    const live = await this.store.accounts.requirePartner(partnerId);
    if (opts.apiKeyHeader !== undefined && opts.apiKey === undefined) {
      throw new WebhookAdminError('--api-key-header needs --api-key');
    }
    // A test endpoint belongs to the credential's sandbox, made on first use.
    const partner =
      mode === 'test' ? await this.store.accounts.sandboxPartner(partnerId, { create: true }) : live;
    const receiverKey =
      opts.apiKey === undefined ? undefined : { header: opts.apiKeyHeader, value: opts.apiKey };
    const put = await this.cli(() =>
      this.endpoints.put(this.owner(partner, mode), { url, receiverKey }, this.origin),
    );
    return { partnerId, mode, url: put.view.url, signingSecret: put.signingSecret };
  }

  async rotateSecret(
    partnerId: string,
    activateInMs: number,
    mode: ApiMode = 'live',
  ): Promise<{ partnerId: string; mode: ApiMode; signingSecret: string; activatesAt: string }> {
    const partner = await this.store.accounts.partnerForMode(partnerId, mode);
    const rotated = await this.endpoints.rotateSecret(this.owner(partner, mode), activateInMs, this.origin);
    if (!rotated) {
      throw new WebhookAdminError(
        `partner ${partnerId} has no ${mode} callback registered; use webhooks set${mode === 'test' ? ' --mode test' : ''} first`,
      );
    }
    return { partnerId, mode, ...rotated };
  }

  /** The partner's callback as the owner sees it (never the signing secrets or receiver key). */
  async show(partnerId: string, mode: ApiMode = 'live') {
    const partner = await this.store.accounts.partnerForMode(partnerId, mode);
    const view = await this.endpoints.get(this.owner(partner, mode), this.origin);
    return {
      partnerId,
      mode,
      url: view?.url ?? null,
      receiverKey: view?.receiverKey ?? null,
      signingSecrets: view?.signingSecrets ?? [],
      ...(view
        ? {
            status: view.status,
            disabledAt: view.disabledAt,
            disabledReason: view.disabledReason,
            last24Hours: view.last24Hours,
          }
        : {}),
    };
  }

  private owner(partner: { partnerId: string; tenantId: string }, mode: ApiMode): EndpointOwner {
    return { tenant: this.o.tenants.forTenant(partner.tenantId), partnerId: partner.partnerId, mode };
  }

  /** The service's refusals as the command's: named by its flags, with the insecure hint. */
  private async cli<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (!(error instanceof EndpointInputError)) throw error;
      const reason = error.describe(FLAGS[error.field]);
      throw new WebhookAdminError(error.field === 'url' ? this.withInsecureHint(reason) : reason);
    }
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
    action: 'webhook.redelivered',
    resourceId: string,
    now: Date,
    origin: AuditOrigin = this.origin,
  ): Promise<void> {
    return this.store.audit.record(
      trx,
      tenantId,
      { action, resourceType: 'webhook_event', resourceId },
      origin,
      now,
    );
  }

  private now(): Date {
    return this.o.clock();
  }

  /** An operator trying a local receiver needs to know the switch exists (and what it is for). */
  private withInsecureHint(reason: string): string {
    if (this.o.allowInsecure) return reason;
    return `${reason} For a local receiver in development only, set WEBHOOK_ALLOW_INSECURE=true (http:// and private addresses).`;
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
