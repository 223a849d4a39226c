import { SUBMISSION_STATUS_LABELS, SUBMISSION_STATUSES } from '../../../domain/statuses.js';
import type { SubmissionPage } from '../../submission-list-item.js';
import { deadlineWords } from './callback-words.js';

/** The statuses after which a submission's processing deadline can no longer be missed. */
const FINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'rejected']);

export interface SubmissionFilters {
  status?: string | undefined;
  partnerSubjectId?: string | undefined;
  partnerSubmissionId?: string | undefined;
  receivedAfter?: string | undefined;
  receivedBefore?: string | undefined;
}

const TEXT_FILTERS: Array<{ name: keyof SubmissionFilters; label: string; hint?: string }> = [
  { name: 'partnerSubmissionId', label: 'Your submission reference' },
  { name: 'partnerSubjectId', label: 'Your subject reference' },
  { name: 'receivedAfter', label: 'Received at or after', hint: 'e.g. 2026-11-21T12:00:00Z' },
  { name: 'receivedBefore', label: 'Received before', hint: 'e.g. 2026-11-22T00:00:00Z' },
];

function Filters({ filters, errors }: { filters: SubmissionFilters; errors: Record<string, string> }) {
  return (
    <form method="get" action="/console/submissions" class="filters">
      <div class="field">
        <label for="f-status">Status</label>
        <select id="f-status" name="status">
          <option value="">Any status</option>
          {SUBMISSION_STATUSES.map((s) => (
            <option key={s} value={s} selected={filters.status === s}>
              {SUBMISSION_STATUS_LABELS[s]}
            </option>
          ))}
        </select>
      </div>
      {TEXT_FILTERS.map((f) => (
        <div class="field" key={f.name}>
          <label for={`f-${f.name}`}>{f.label}</label>
          {f.hint ? (
            <span class="hint" id={`f-${f.name}-hint`}>
              {f.hint}
            </span>
          ) : null}
          <input
            id={`f-${f.name}`}
            name={f.name}
            type="text"
            value={filters[f.name] ?? ''}
            aria-describedby={
              [f.hint ? `f-${f.name}-hint` : '', errors[f.name] ? `f-${f.name}-error` : '']
                .join(' ')
                .trim() || undefined
            }
            aria-invalid={errors[f.name] ? 'true' : undefined}
          />
          {errors[f.name] ? (
            <span class="error" id={`f-${f.name}-error`}>
              {errors[f.name]}
            </span>
          ) : null}
        </div>
      ))}
      <button type="submit">Find submissions</button>
    </form>
  );
}

/** The list with the API's filters; the next page is a link carrying the same filters and the cursor. */
export function Submissions({
  filters,
  page,
  errors,
}: {
  filters: SubmissionFilters;
  page: SubmissionPage | undefined;
  errors: Record<string, string>;
}) {
  const next = page?.nextCursor ? nextHref(filters, page.nextCursor) : undefined;
  return (
    <>
      <Filters filters={filters} errors={errors} />
      {Object.keys(errors).length > 0 ? (
        <p class="error" role="alert">
          Some filters are not valid; correct them and search again.
        </p>
      ) : null}
      {page && page.items.length === 0 ? <p>No submissions match these filters.</p> : null}
      {page && page.items.length > 0 ? (
        <table class="list">
          <caption>Submissions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Your reference</th>
              <th scope="col">Status</th>
              <th scope="col">Received (UTC)</th>
              <th scope="col">Why it failed</th>
              <th scope="col">Deadline</th>
            </tr>
          </thead>
          <tbody>
            {page.items.map((item) => (
              <tr key={item.submissionId}>
                <td>
                  <a href={`/console/submissions/${item.submissionId}`}>{item.partnerSubmissionId}</a>
                </td>
                <td>
                  <span class={`badge status-${item.status}`}>{item.statusLabel}</span>
                </td>
                <td>{item.receivedAt.replace('T', ' ').slice(0, 19)}</td>
                <td>{item.errorSummary ?? '—'}</td>
                <td>
                  {deadlineWords({
                    slaDeadlineAt: item.slaDeadlineAt,
                    missed: item.slaBreached,
                    finished: FINAL.has(item.status),
                  })}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
      {next ? (
        <p>
          <a href={next} rel="next">
            Older submissions
          </a>
        </p>
      ) : null}
    </>
  );
}

function nextHref(filters: SubmissionFilters, cursor: string): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value) query.set(name, value);
  query.set('cursor', cursor);
  return `/console/submissions?${query}`;
}
