import type { TenantAccess } from '../store/tenant-access.js';
import type { PageRead } from './page-read.js';

/** The audit trail's filters: the partner's own references, exact match. */
export type AuditFilters = Pick<
  Parameters<TenantAccess['audit']['list']>[0],
  'partnerSubmissionId' | 'partnerSubjectId'
>;

/** One page of the account's audit trail, newest first: events about the matching submissions only. */
export function auditPage(tenant: TenantAccess, filters: AuditFilters, read: PageRead) {
  return tenant.audit.list({ ...filters, limit: read.limit, after: read.after });
}
