import type { AuditEvent } from '../../../domain/audit.js';
import type { PartnerReferences } from '../../../store/tenant-access.js';
import { AUDIT_ACTION_LABELS, AUDIT_RESOURCE_LABELS, actorLabel } from './audit-labels.js';
import { Field } from './form-field.js';

/** The search as the form gave it (trimmed, empty ones left out): the API's parameters. */
export interface AuditFilters {
  partnerSubmissionId?: string | undefined;
  partnerSubjectId?: string | undefined;
  /** Events per page as asked (the API's `limit`); absent for the default. */
  limit?: string | undefined;
}

export interface AuditView {
  items: AuditEvent[];
  nextCursor: string | null;
  filters: AuditFilters;
  /** Key ids → their first characters, to name the keys that acted. */
  prefixes: ReadonlyMap<string, string>;
  /** Resource ids → the partner's references of the submission behind them. */
  references: ReadonlyMap<string, PartnerReferences>;
  /** The problems with the search, by parameter name. */
  errors: Record<string, string>;
}

/** The partner's own references of the submission behind an entry, as the support person knows it. */
function References({ refs }: { refs: PartnerReferences | undefined }) {
  if (!refs) return null;
  return (
    <>
      <br />
      Your submission reference <strong>{refs.partnerSubmissionId}</strong>, subject reference{' '}
      <strong>{refs.partnerSubjectId}</strong>
    </>
  );
}

/** The search by the partner's references, worded as the callback events' search is. */
function SearchForm({ filters, errors }: { filters: AuditFilters; errors: Record<string, string> }) {
  const values = Object.fromEntries(
    Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const form = { values, errors };
  return (
    <form method="get" action="/console/audit" class="filters">
      <Field
        idPrefix="a"
        name="partnerSubmissionId"
        label="Your submission reference"
        hint="Exactly as you sent it, e.g. sub-000124"
        form={form}
      />
      <Field
        idPrefix="a"
        name="partnerSubjectId"
        label="Your subject reference"
        hint="Exactly as you sent it"
        form={form}
      />
      <Field
        idPrefix="a"
        name="limit"
        label="Events per page"
        hint="1 to 200 (default 50)"
        form={form}
        inputMode="numeric"
      />
      <button type="submit">Find events</button>
    </form>
  );
}

function nextHref(filters: AuditFilters, cursor: string): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
  query.set('cursor', cursor);
  return `/console/audit?${query}`;
}

/** The parameters the form has a field for (a problem with another one is named in the alert). */
const FIELDS: ReadonlySet<string> = new Set(['partnerSubmissionId', 'partnerSubjectId', 'limit']);

function searched(filters: AuditFilters): boolean {
  return Boolean(filters.partnerSubmissionId || filters.partnerSubjectId);
}

function Explanation({ searched }: { searched: boolean }) {
  return (
    <p>
      Who viewed, created, downloaded or changed what in this account. Events name the service's ids only,
      never submitted data; this page adds your own references of the submission behind an entry.
      {searched
        ? ' Searched by your references, it lists the events about the matching submissions and their ' +
          'results, reports and callback events.'
        : null}
    </p>
  );
}

/** The account's audit trail, newest first (the API's `GET /v1/audit-events`), a page at a time. */
export function AuditTrail({ view }: { view: AuditView }) {
  return (
    <>
      <Explanation searched={searched(view.filters)} />
      <SearchForm filters={view.filters} errors={view.errors} />
      {Object.keys(view.errors).length > 0 ? (
        <p class="error" role="alert">
          Some filters are not valid; correct them and search again.
          {Object.entries(view.errors)
            .filter(([name]) => !FIELDS.has(name))
            .map(([name, message]) => (
              <span key={name}> {message}</span>
            ))}
        </p>
      ) : null}
      {view.items.length === 0 && Object.keys(view.errors).length === 0 ? (
        <p>{searched(view.filters) ? 'No events match these filters.' : 'No events.'}</p>
      ) : null}
      {view.items.length > 0 ? (
        <table class="list">
          <caption>Audit events, newest first</caption>
          <thead>
            <tr>
              <th scope="col">When (UTC)</th>
              <th scope="col">What</th>
              <th scope="col">On</th>
              <th scope="col">Who</th>
              <th scope="col">Request</th>
            </tr>
          </thead>
          <tbody>
            {view.items.map((e) => (
              <tr key={e.eventId}>
                <td>{e.occurredAt.replace('T', ' ').slice(0, 19)}</td>
                <td>{AUDIT_ACTION_LABELS[e.action]}</td>
                <td>
                  {AUDIT_RESOURCE_LABELS[e.resourceType]} <code>{e.resourceId}</code>
                  {e.resourceType === 'api_key' && view.prefixes.has(e.resourceId)
                    ? ` (${view.prefixes.get(e.resourceId)}…)`
                    : null}
                  <References refs={view.references.get(e.resourceId)} />
                </td>
                <td>{actorLabel(e.actor, view.prefixes)}</td>
                <td>
                  <code>{e.requestId}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {view.nextCursor ? (
        <p>
          <a href={nextHref(view.filters, view.nextCursor)} rel="next">
            Older events
          </a>
        </p>
      ) : null}
    </>
  );
}
