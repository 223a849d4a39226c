import type { ErasureRecord } from '../../../store/tenant-access.js';
import { Field } from './form-field.js';
import { Csrf } from './layout.js';

function when(time: string | null, none: string): string {
  return time === null ? none : time.replace('T', ' ').slice(0, 19);
}

/** The status in words (never by colour alone). */
function StatusBadge({ erasure }: { erasure: ErasureRecord }) {
  return erasure.status === 'completed' ? (
    <span class="badge status-completed">Completed</span>
  ) : (
    <span class="badge">In progress</span>
  );
}

function removed(e: ErasureRecord): string {
  const { submissions, results, artifacts } = e.counts;
  return `Submissions: ${submissions}, results: ${results}, report files: ${artifacts}`;
}

/** A subject reference typed afresh: never filled in again after a refusal, not spell-checked. */
function SubjectField({
  name,
  label,
  hint,
  error,
}: {
  name: string;
  label: string;
  hint: string;
  error: string | undefined;
}) {
  const form = { values: {}, errors: error ? { [name]: error } : {} };
  return <Field name={name} label={label} hint={hint} form={form} idPrefix="e" required spellcheck={false} />;
}

/** The first step of "Request an erasure": the subject reference, checked on the next step. */
export function RequestForm({ csrf, error }: { csrf: string; error?: string | undefined }) {
  return (
    <section aria-labelledby="request-erasure">
      <h2 id="request-erasure">Request an erasure</h2>
      <p>
        Erases every submission of one subject in this account, with its results, reports and callback events.
        This cannot be undone.
      </p>
      <form method="post" action="/console/erasures/confirm" class="filters">
        <Csrf token={csrf} />
        <SubjectField
          name="subject"
          label="Subject reference"
          hint="The partnerSubjectId your submissions carried"
          error={error}
        />
        <button type="submit">Continue</button>
      </form>
    </section>
  );
}

/**
 * The confirmation step: the reference is typed again, and the erasure is requested only when the
 * two match. The first typing rides along in a hidden field (a form post: never in a URL).
 */
export function ConfirmErasure({
  subject,
  csrf,
  error,
}: {
  subject: string;
  csrf: string;
  error?: string | undefined;
}) {
  return (
    <>
      <p class="warning">
        <strong>Warning:</strong> everything stored about this subject in this account will be erased, and
        this cannot be undone.
      </p>
      <p>
        Type the subject reference again to confirm: the erasure is requested only when both typings match.
      </p>
      <form method="post" action="/console/erasures" class="filters">
        <Csrf token={csrf} />
        <input type="hidden" name="subject" value={subject} />
        <SubjectField
          name="again"
          label="Subject reference, again"
          hint="Exactly as you typed it on the previous step"
          error={error}
        />
        <button type="submit">Erase this subject</button>
      </form>
      <p>
        <a href="/console/erasures">Cancel: erase nothing</a>
      </p>
    </>
  );
}

export interface ErasuresView {
  items: ErasureRecord[];
  nextHref: string | undefined;
  /** The request form's token: only for a session that may request erasures. */
  manageCsrf: string | undefined;
  error?: string | undefined;
  /** Why the page asked for could not be shown (a page link that is not this list's own). */
  listError?: string | undefined;
}

/** The account's erasures, newest first, with "Request an erasure" for a `manage` session. */
export function Erasures({ view }: { view: ErasuresView }) {
  return (
    <>
      {view.manageCsrf !== undefined ? <RequestForm csrf={view.manageCsrf} error={view.error} /> : null}
      {view.listError ? (
        <p class="error" role="alert">
          {view.listError} <a href="/console/erasures">Start again from the newest erasures.</a>
        </p>
      ) : null}
      {view.items.length === 0 ? <p>No erasures have been requested in this account.</p> : null}
      {view.items.length > 0 ? (
        <table class="list">
          <caption>Erasures, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Subject reference</th>
              <th scope="col">Status</th>
              <th scope="col">Requested (UTC)</th>
              <th scope="col">Completed (UTC)</th>
              <th scope="col">Erased so far</th>
            </tr>
          </thead>
          <tbody>
            {view.items.map((e) => (
              <tr key={e.erasureId}>
                <td>
                  <a href={`/console/erasures/${e.erasureId}`}>
                    <code>{e.partnerSubjectId}</code>
                  </a>
                </td>
                <td>
                  <StatusBadge erasure={e} />
                </td>
                <td>{when(e.requestedAt, '—')}</td>
                <td>{when(e.completedAt, 'Not yet')}</td>
                <td>{removed(e)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {view.nextHref ? (
        <p>
          <a href={view.nextHref} rel="next">
            Older erasures
          </a>
        </p>
      ) : null}
    </>
  );
}

/** One erasure's progress: what the API's `GET /v1/erasures/{id}` returns. */
export function ErasureDetail({ erasure }: { erasure: ErasureRecord }) {
  return (
    <>
      <dl>
        <dt>Subject reference</dt>
        <dd>
          <code>{erasure.partnerSubjectId}</code>
        </dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge erasure={erasure} />
        </dd>
        <dt>Requested (UTC)</dt>
        <dd>{when(erasure.requestedAt, '—')}</dd>
        <dt>Completed (UTC)</dt>
        <dd>{when(erasure.completedAt, 'Not yet')}</dd>
        <dt>Submissions erased</dt>
        <dd>{erasure.counts.submissions}</dd>
        <dt>Results erased</dt>
        <dd>{erasure.counts.results}</dd>
        <dt>Report files erased</dt>
        <dd>{erasure.counts.artifacts}</dd>
        <dt>Erasure id</dt>
        <dd>
          <code>{erasure.erasureId}</code>
        </dd>
      </dl>
      {erasure.status === 'pending' ? (
        <p>
          The erasure is under way: <a href={`/console/erasures/${erasure.erasureId}`}>reload this page</a> to
          see its progress.
        </p>
      ) : (
        <p>Everything stored about this subject when the erasure was requested has been erased.</p>
      )}
      <p>
        <a href="/console/erasures">Back to the erasures</a>
      </p>
    </>
  );
}
