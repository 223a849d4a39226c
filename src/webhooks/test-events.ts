import type { AuditOrigin } from '../domain/audit.js';
import type { SystemStore } from '../store/index.js';
import type { TenantAccess } from '../store/tenant-access.js';
import type { WebhookAdmin } from './admin.js';

/**
 * `POST /v1/test/events`: a completed result's `result.ready` event sent again to the test
 * callback, exactly as a redelivery (same event id, brought forward or started again). Every
 * lookup is bound to the account the request's key belongs to, so another account's (or the
 * live data's) result ids are not found.
 */
export class TestEvents {
  constructor(
    private readonly store: SystemStore,
    private readonly admin: WebhookAdmin,
  ) {}

  async send(tenant: TenantAccess, resultId: string | undefined, origin: AuditOrigin) {
    const tenantId = tenant.tenantId;
    const id = resultId ?? (await this.store.webhooks.newestCompletedResult(this.store.db, tenantId));
    if (id === undefined) return { ok: false as const, reason: 'no_result' as const };
    const sent = await this.admin.resend(id, { tenantId, origin });
    return sent.ok ? { ok: true as const, eventId: sent.eventId, resultId: id } : sent;
  }
}
