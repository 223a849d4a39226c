import type { AuditOrigin } from '../domain/audit.js';
import type { TenantAccess } from '../store/tenant-access.js';
import type { WebhookAdmin } from './admin.js';

/**
 * `POST /v1/test/events`: a completed result's `result.ready` event sent again to the test
 * callback, exactly as a redelivery (same event id, brought forward or started again). The
 * result is found through the request's own account access, so another account's (or the live
 * data's) result ids are not found; the redelivery is bound to that account again.
 */
export class TestEvents {
  constructor(private readonly admin: WebhookAdmin) {}

  async send(tenant: TenantAccess, resultId: string | undefined, origin: AuditOrigin) {
    const id = await tenant.results.locate(resultId);
    if (id === undefined) {
      return {
        ok: false as const,
        reason: resultId === undefined ? ('no_result' as const) : ('not_found' as const),
      };
    }
    const sent = await this.admin.resend(id, { tenantId: tenant.tenantId, origin });
    return sent.ok ? { ok: true as const, eventId: sent.eventId, resultId: id } : sent;
  }
}
