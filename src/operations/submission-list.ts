import type { AuditOrigin } from '../domain/audit.js';
import type { TenantAccess } from '../store/tenant-access.js';
import type { PageRead } from './page-read.js';

type SubmissionQuery = Parameters<TenantAccess['submissions']['list']>[0];

/** The submissions list's filters besides its time window. */
export type SubmissionFilters = Pick<SubmissionQuery, 'status' | 'partnerSubjectId' | 'partnerSubmissionId'>;

/** One page of the account's submissions, newest first (audited once per page as a read of the account). */
export function submissionPage(
  tenant: TenantAccess,
  filters: SubmissionFilters,
  read: PageRead,
  origin: AuditOrigin,
) {
  return tenant.submissions.list(
    { ...filters, receivedAfter: read.from, receivedBefore: read.to, limit: read.limit, after: read.after },
    origin,
  );
}
