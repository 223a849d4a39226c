import type { Kysely } from 'kysely';
import { isUuid } from '../../domain/ids.js';
import type { Database } from '../database.js';

/** The partner's own references of a submission, by which support people know it. */
export interface PartnerReferences {
  partnerSubmissionId: string;
  partnerSubjectId: string;
}

/** An audit entry's resource, as the trail names it. */
export interface NamedResource {
  resourceType: string;
  resourceId: string;
}

/**
 * The partner's references of the submissions behind audited resources (a submission, its
 * result, report or callback event), by resource id; resources of other kinds, erased ones and
 * other accounts' are absent. The audit trail itself keeps the service's ids only: the
 * references are joined in when the account's own console shows it.
 */
export async function referencesOf(
  db: Kysely<Database>,
  tenantId: string,
  resources: readonly NamedResource[],
): Promise<Map<string, PartnerReferences>> {
  const ids = (type: string) => [
    ...new Set(
      resources.filter((r) => r.resourceType === type && isUuid(r.resourceId)).map((r) => r.resourceId),
    ),
  ];
  const columns = ['s.partner_submission_id', 's.partner_subject_id'] as const;
  const queries = [
    ids('submission').length === 0
      ? []
      : db
          .selectFrom('submissions as s')
          .select(['s.id as resource_id', ...columns])
          .where('s.tenant_id', '=', tenantId)
          .where('s.id', 'in', ids('submission'))
          .execute(),
    ids('result').length === 0
      ? []
      : db
          .selectFrom('results as r')
          .innerJoin('submissions as s', 's.id', 'r.submission_id')
          .select(['r.id as resource_id', ...columns])
          .where('r.tenant_id', '=', tenantId)
          .where('r.id', 'in', ids('result'))
          .execute(),
    ids('artifact').length === 0
      ? []
      : db
          .selectFrom('artifacts as a')
          .innerJoin('submissions as s', 's.id', 'a.submission_id')
          .select(['a.id as resource_id', ...columns])
          .where('a.tenant_id', '=', tenantId)
          .where('a.id', 'in', ids('artifact'))
          .execute(),
    ids('webhook_event').length === 0
      ? []
      : db
          .selectFrom('webhook_events as e')
          .innerJoin('results as r', 'r.id', 'e.result_id')
          .innerJoin('submissions as s', 's.id', 'r.submission_id')
          .select(['e.id as resource_id', ...columns])
          .where('e.tenant_id', '=', tenantId)
          .where('e.id', 'in', ids('webhook_event'))
          .execute(),
  ];
  const out = new Map<string, PartnerReferences>();
  for (const rows of await Promise.all(queries)) {
    for (const row of rows) {
      out.set(String(row.resource_id), {
        partnerSubmissionId: row.partner_submission_id,
        partnerSubjectId: row.partner_subject_id,
      });
    }
  }
  return out;
}

/** The partner's references a search of the audit trail asks for (exact match, both if given). */
export interface ReferenceSearch {
  partnerSubmissionId?: string | undefined;
  partnerSubjectId?: string | undefined;
}

/**
 * The ids of the account's submissions with these references and of everything derived from
 * them (their results, report artifacts, callback events): the resources whose audit entries a
 * search by the partner's references lists. Erased submissions are gone, so are theirs.
 */
export async function resourcesOfReferences(
  db: Kysely<Database>,
  tenantId: string,
  search: ReferenceSearch,
): Promise<string[]> {
  let query = db.selectFrom('submissions').select('id').where('tenant_id', '=', tenantId);
  if (search.partnerSubmissionId !== undefined)
    query = query.where('partner_submission_id', '=', search.partnerSubmissionId);
  if (search.partnerSubjectId !== undefined)
    query = query.where('partner_subject_id', '=', search.partnerSubjectId);
  const submissions = (await query.execute()).map((row) => String(row.id));
  if (submissions.length === 0) return [];
  const [results, artifacts] = await Promise.all([
    db
      .selectFrom('results')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('submission_id', 'in', submissions)
      .execute(),
    db
      .selectFrom('artifacts')
      .select('id')
      .where('tenant_id', '=', tenantId)
      .where('submission_id', 'in', submissions)
      .execute(),
  ]);
  const resultIds = results.map((row) => String(row.id));
  const events =
    resultIds.length === 0
      ? []
      : await db
          .selectFrom('webhook_events')
          .select('id')
          .where('tenant_id', '=', tenantId)
          .where('result_id', 'in', resultIds)
          .execute();
  return [
    ...submissions,
    ...resultIds,
    ...artifacts.map((row) => String(row.id)),
    ...events.map((row) => String(row.id)),
  ];
}
