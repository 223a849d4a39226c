import type { AuditEvent } from '../../../domain/audit.js';
import type { PartnerReferences } from '../../../store/tenant-access.js';
import { AUDIT_ACTION_LABELS, AUDIT_RESOURCE_LABELS, actorLabel } from './audit-labels.js';

export interface AuditView {
  items: AuditEvent[];
  nextCursor: string | null;
  /** Events per page as asked (the API's `limit`); empty for the default. */
  limit: string;
  /** Key ids → their first characters, to name the keys that acted. */
  prefixes: ReadonlyMap<string, string>;
  /** Resource ids → the partner's references of the submission behind them. */
  references: ReadonlyMap<string, PartnerReferences>;
  error?: string | undefined;
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

function LimitForm({ limit, error }: { limit: string; error: string | undefined }) {
  return (
    <form method="get" action="/console/audit" class="filters">
      <div class="field">
        <label for="a-limit">Events per page</label>
        <span class="hint" id="a-limit-hint">
          1 to 200 (default 50)
        </span>
        <input
          id="a-limit"
          name="limit"
          type="text"
          inputmode="numeric"
          value={limit}
          aria-describedby={error ? 'a-limit-hint a-limit-error' : 'a-limit-hint'}
          aria-invalid={error ? 'true' : undefined}
        />
        {error ? (
          <span class="error" id="a-limit-error">
            {error}
          </span>
        ) : null}
      </div>
      <button type="submit">Show events</button>
    </form>
  );
}

function nextHref(limit: string, cursor: string): string {
  const query = new URLSearchParams();
  if (limit) query.set('limit', limit);
  query.set('cursor', cursor);
  return `/console/audit?${query}`;
}

/** The account's audit trail, newest first (the API's `GET /v1/audit-events`), a page at a time. */
export function AuditTrail({ view }: { view: AuditView }) {
  return (
    <>
      <p>
        Who viewed, created, downloaded or changed what in this account. Events name the service's ids only,
        never submitted data; this page adds your own references of the submission behind an entry.
      </p>
      <LimitForm limit={view.limit} error={view.error} />
      {view.items.length === 0 && !view.error ? <p>No events.</p> : null}
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
          <a href={nextHref(view.limit, view.nextCursor)} rel="next">
            Older events
          </a>
        </p>
      ) : null}
    </>
  );
}
