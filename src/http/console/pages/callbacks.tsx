import { durationWords } from '../../../domain/duration.js';
import type { EndpointView } from '../../../operations/callback-endpoint.js';
import { ROTATION_ACTIVATE_IN } from '../../../webhooks/rotation.js';
import { DELIVERY_STATUSES, type EventPage } from '../../event-schemas.js';
import { Field, type FormState } from './form-field.js';
import { Csrf } from './layout.js';

/** Delivery statuses in words: status is never told by colour alone. */
export const DELIVERY_LABELS: Record<(typeof DELIVERY_STATUSES)[number], string> = {
  pending: 'Pending',
  delivered: 'Delivered',
  failed: 'Failed',
  endpoint_disabled: 'Held (callback endpoint disabled)',
};

export const FAILURE_LABELS: Record<string, string> = {
  no_endpoint: 'No callback URL was set',
  attempts_exhausted: 'Every attempt failed',
};

/** When a secret rotated now starts signing (the API's activateIn forms); the first is the default. */
export const ACTIVATE_CHOICES: ReadonlyArray<{ value: string; label: string }> = [
  {
    value: ROTATION_ACTIVATE_IN,
    label: `In ${durationWords(ROTATION_ACTIVATE_IN)} (both secrets sign until then)`,
  },
  { value: '1h', label: `In ${durationWords('1h')}` },
  { value: '7d', label: `In ${durationWords('7d')}` },
  { value: '0s', label: 'At once' },
];

export function when(time: string | null, none = '—'): string {
  return time === null ? none : time.replace('T', ' ').slice(0, 19);
}

export type { FormState };

export const EMPTY_FORM: FormState = { values: {}, errors: {} };

function EndpointFacts({ endpoint, now }: { endpoint: EndpointView; now: Date }) {
  return (
    <dl>
      <dt>URL</dt>
      <dd>
        <code>{endpoint.url}</code>
      </dd>
      <dt>Status</dt>
      <dd>
        <span class={`badge endpoint-${endpoint.status}`}>
          {endpoint.status === 'enabled' ? 'Enabled' : 'Disabled'}
        </span>
      </dd>
      <dt>Failing since (UTC)</dt>
      <dd>{when(endpoint.failingSince, 'Not failing')}</dd>
      <dt>Receiver key</dt>
      <dd>{endpoint.receiverKey ? `Sent in the ${endpoint.receiverKey.header} header` : 'None'}</dd>
      <dt>Last 24 hours</dt>
      <dd>
        {endpoint.last24Hours.delivered} delivered, {endpoint.last24Hours.failed} failed
      </dd>
      <dt>Signing secrets</dt>
      <dd>
        <SecretList endpoint={endpoint} now={now} />
      </dd>
    </dl>
  );
}

/**
 * A secret named by the last characters of its id (the API's `secretId`): how the page tells
 * secrets apart, never the secret. Ids start with their time, so the end is what differs.
 */
export function secretName(secretId: string): string {
  return `Secret …${secretId.slice(-8)}`;
}

/**
 * The signing secrets, the one that starts signing last first (the API's order), each named by
 * the end of its id and said in words: in effect, signing from a time to come, or replaced.
 */
function SecretList({ endpoint, now }: { endpoint: EndpointView; now: Date }) {
  if (endpoint.signingSecrets.length === 0) return <>None</>;
  return (
    <ul class="secrets">
      {endpoint.signingSecrets.map((s) => {
        const at = `${when(s.activatesAt)} UTC`;
        const state = s.active
          ? `in effect since ${at}`
          : Date.parse(s.activatesAt) > now.getTime()
            ? `signs from ${at}`
            : `replaced (signed from ${at})`;
        return (
          <li key={s.secretId}>
            {secretName(s.secretId)}: {state}
          </li>
        );
      })}
    </ul>
  );
}

function DisabledBanner({ endpoint, csrf }: { endpoint: EndpointView; csrf: string | undefined }) {
  return (
    <div class="warning" role="status">
      <p>
        <strong>Callbacks are disabled</strong> since {when(endpoint.disabledAt)} UTC
        {endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}: no callback is sent until the
        endpoint is enabled. Events held meanwhile are sent by recovering their window.
      </p>
      {csrf !== undefined ? (
        <form method="post" action="/console/callbacks/enable">
          <Csrf token={csrf} />
          <button type="submit">Enable</button>
        </form>
      ) : null}
    </div>
  );
}

function SetUrlForm({ csrf, form, has }: { csrf: string; form: FormState; has: boolean }) {
  return (
    <section aria-labelledby="set-url">
      <h3 id="set-url">{has ? 'Change the URL' : 'Set the URL'}</h3>
      <form method="post" action="/console/callbacks/endpoint" class="filters">
        <Csrf token={csrf} />
        <Field name="url" label="Callback URL" form={form} hint="https:// with a public host name" />
        <Field
          name="receiverKeyHeader"
          label="Receiver key header (optional)"
          form={form}
          hint="X-Api-Key when empty"
        />
        <Field
          name="receiverKeyValue"
          label="Receiver key (optional)"
          type="password"
          form={form}
          hint="Sent with every delivery; left empty, none is sent"
        />
        <button type="submit">Save the URL</button>
      </form>
    </section>
  );
}

function RotateForm({ csrf }: { csrf: string }) {
  return (
    <section aria-labelledby="rotate">
      <h3 id="rotate">Rotate the signing secret</h3>
      <form method="post" action="/console/callbacks/rotate-secret" class="filters">
        <Csrf token={csrf} />
        <div class="field">
          <label for="cb-activateIn">The new secret signs</label>
          <select id="cb-activateIn" name="activateIn">
            {ACTIVATE_CHOICES.map((c) => (
              <option key={c.value} value={c.value}>
                {c.label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Rotate the secret</button>
      </form>
    </section>
  );
}

/** The endpoint of the mode shown and, for a `manage` session, its forms. */
export function EndpointSection({
  endpoint,
  manageCsrf,
  form,
  notice,
  now,
}: {
  endpoint: EndpointView | undefined;
  manageCsrf: string | undefined;
  form: FormState;
  notice?: string | undefined;
  /** The service's clock now: which secrets are still to come. */
  now: Date;
}) {
  return (
    <section aria-labelledby="endpoint">
      <h2 id="endpoint">Your callback endpoint</h2>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      {endpoint?.status === 'disabled' ? <DisabledBanner endpoint={endpoint} csrf={manageCsrf} /> : null}
      {endpoint ? (
        <EndpointFacts endpoint={endpoint} now={now} />
      ) : (
        <p>No callback URL is set for this mode: results are recorded as events but not sent.</p>
      )}
      {manageCsrf !== undefined ? (
        <>
          <SetUrlForm csrf={manageCsrf} form={form} has={endpoint !== undefined} />
          {endpoint ? <RotateForm csrf={manageCsrf} /> : null}
        </>
      ) : null}
    </section>
  );
}

/** A new signing secret, shown on the page answering the post only: it is stored sealed. */
export function NewSecret({
  secret,
  activatesAt,
  secretId,
}: {
  secret: string;
  activatesAt: string;
  secretId: string | undefined;
}) {
  return (
    <section aria-labelledby="new-secret" class="secret">
      <h2 id="new-secret">Your new signing secret{secretId ? ` (${secretName(secretId)})` : ''}</h2>
      <p>
        Copy it now into your receiver: this is the only time it is shown. It signs deliveries from{' '}
        {when(activatesAt)} UTC; until then both secrets sign.
      </p>
      <p>
        <code id="new-secret-value" class="secret-value">
          {secret}
        </code>
      </p>
      <button type="button" class="copy" data-copy="new-secret-value" hidden>
        Copy the secret
      </button>
      <p class="hint" role="status" id="copy-status" />
      <p>
        <a href="/console/callbacks">Done: back to the callbacks</a>
      </p>
    </section>
  );
}

/** "Recover a window": every failed or held event of it sent again. */
export function RecoverForm({ csrf, form }: { csrf: string; form: FormState }) {
  return (
    <section aria-labelledby="recover">
      <h2 id="recover">Recover a window</h2>
      <p>Sends again every event of the window whose callback failed, was held or never went out.</p>
      <form method="post" action="/console/callbacks/recover" class="filters">
        <Csrf token={csrf} />
        <Field name="since" label="From (UTC)" type="datetime-local" form={form} />
        <Field
          name="until"
          label="To (UTC, optional)"
          type="datetime-local"
          form={form}
          hint="Now when empty"
        />
        <button type="submit">Recover these events</button>
      </form>
    </section>
  );
}

export interface EventFilters {
  deliveryStatus?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  partnerSubmissionId?: string | undefined;
  partnerSubjectId?: string | undefined;
}

function EventFilterForm({ filters, errors }: { filters: EventFilters; errors: Record<string, string> }) {
  const form: FormState = { values: filters as Record<string, string>, errors };
  return (
    <form method="get" action="/console/callbacks" class="filters">
      <div class="field">
        <label for="cb-deliveryStatus">Delivery status</label>
        <select id="cb-deliveryStatus" name="deliveryStatus">
          <option value="">Any status</option>
          {DELIVERY_STATUSES.map((s) => (
            <option key={s} value={s} selected={filters.deliveryStatus === s}>
              {DELIVERY_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      <Field
        name="partnerSubmissionId"
        label="Your submission reference"
        form={form}
        hint="Exactly as you sent it, e.g. sub-000124"
      />
      <Field
        name="partnerSubjectId"
        label="Your subject reference"
        form={form}
        hint="Exactly as you sent it"
      />
      <Field name="createdAfter" label="Created at or after" form={form} hint="e.g. 2026-11-21T12:00:00Z" />
      <Field name="createdBefore" label="Created before" form={form} hint="e.g. 2026-11-22T00:00:00Z" />
      <button type="submit">Find events</button>
    </form>
  );
}

function nextHref(filters: EventFilters, cursor: string): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
  query.set('cursor', cursor);
  return `/console/callbacks?${query}`;
}

/** The events of the mode shown with the API's filters; older pages by the API's cursor. */
export function EventList({
  filters,
  page,
  errors,
}: {
  filters: EventFilters;
  page: EventPage | undefined;
  errors: Record<string, string>;
}) {
  return (
    <section aria-labelledby="events">
      <h2 id="events">Events</h2>
      <EventFilterForm filters={filters} errors={errors} />
      {Object.keys(errors).length > 0 ? (
        <p class="error" role="alert">
          Some filters are not valid; correct them and search again.
        </p>
      ) : null}
      {page && page.items.length === 0 ? <p>No events match these filters.</p> : null}
      {page && page.items.length > 0 ? (
        <table class="list">
          <caption>Callback events, newest first (each reference leads to its event)</caption>
          <thead>
            <tr>
              <th scope="col">Your submission reference</th>
              <th scope="col">Your subject reference</th>
              <th scope="col">Created (UTC)</th>
              <th scope="col">Delivery</th>
              <th scope="col">Attempts</th>
              <th scope="col">Why it failed</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((item) => (
              <tr key={item.eventId}>
                <td>
                  <a href={`/console/callbacks/events/${item.eventId}`}>{item.partnerSubmissionId}</a>
                </td>
                <td>{item.partnerSubjectId}</td>
                <td>{when(item.createdAt)}</td>
                <td>
                  <span class={`badge delivery-${item.deliveryStatus}`}>
                    {DELIVERY_LABELS[item.deliveryStatus]}
                  </span>
                </td>
                <td>{item.attemptCount}</td>
                <td>{item.failureReason ? (FAILURE_LABELS[item.failureReason] ?? 'Failed') : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {page?.nextCursor ? (
        <p>
          <a href={nextHref(filters, page.nextCursor)} rel="next">
            Older events
          </a>
        </p>
      ) : null}
    </section>
  );
}
