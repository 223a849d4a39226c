import type { SubmissionCallbackRecord } from '../../../store/tenant-access.js';
import type { ResultBody } from '../../result-body.js';
import type { SubmissionDetail } from '../../schemas.js';
import { attemptWords, clockTime, deadlineWords } from './callback-words.js';
import { Csrf } from './layout.js';

const time = (value: string | null) => (value === null ? '—' : `${value.replace('T', ' ').slice(0, 23)} UTC`);

function Timeline({ detail }: { detail: SubmissionDetail }) {
  return (
    <section aria-labelledby="pipeline">
      <h2 id="pipeline">Processing steps</h2>
      <ol class="timeline">
        {detail.jobs.map((job) => (
          <li key={job.jobId}>
            <h3>
              {job.typeLabel}: <span class={`badge status-${job.status}`}>{job.statusLabel}</span>
            </h3>
            <dl>
              <dt>Accepted</dt>
              <dd>{time(job.acceptedAt)}</dd>
              <dt>Started</dt>
              <dd>{time(job.startedAt)}</dd>
              <dt>Finished</dt>
              <dd>{time(job.completedAt ?? job.failedAt)}</dd>
              <dt>Attempts</dt>
              <dd>{`${job.attempts} of at most ${job.maxAttempts}`}</dd>
              <dt>Processing time</dt>
              <dd>{job.processingDurationMs === null ? '—' : `${job.processingDurationMs} ms`}</dd>
              <dt>Deadline</dt>
              <dd>{jobDeadline(job)}</dd>
              {job.errorSummary ? (
                <>
                  <dt>What went wrong</dt>
                  <dd class="error">{job.errorSummary}</dd>
                </>
              ) : null}
            </dl>
          </li>
        ))}
      </ol>
    </section>
  );
}

/** Statuses that end without a result: nothing more is coming. */
const FINAL_WITHOUT_RESULT: ReadonlySet<string> = new Set(['failed', 'rejected']);

/** Why there is no result: processing ended without one ("Processing failed: no result"), or it is still coming. */
function NoResult({ detail }: { detail: SubmissionDetail }) {
  return (
    <section aria-labelledby="result">
      <h2 id="result">Result</h2>
      <p>
        {FINAL_WITHOUT_RESULT.has(detail.status)
          ? `${detail.statusLabel}: no result`
          : 'No result yet: processing continues.'}
      </p>
    </section>
  );
}

function Outcomes({ result }: { result: ResultBody }) {
  const outcomes = result.outcomes ?? (result.outcome ? [result.outcome] : []);
  return (
    <section aria-labelledby="result">
      <h2 id="result">Result</h2>
      <table class="list">
        <caption>Wellbeing outcomes (informational, not a diagnosis)</caption>
        <thead>
          <tr>
            <th scope="col">Area</th>
            <th scope="col">Score (0 to 1)</th>
            <th scope="col">Against the reference person</th>
            <th scope="col">Band</th>
            <th scope="col">Notes</th>
          </tr>
        </thead>
        <tbody>
          {outcomes.map((o) => (
            <tr key={o.outcomeId}>
              <th scope="row">{o.focus}</th>
              <td>{o.score.toFixed(3)}</td>
              <td>{o.referencePlacementLabel}</td>
              <td>{o.band?.label ?? '—'}</td>
              <td>
                {o.notices && o.notices.length > 0 ? (
                  <ul>
                    {o.notices.map((n) => (
                      <li key={n.message}>{n.message}</li>
                    ))}
                  </ul>
                ) : (
                  `${o.outcomeStatusLabel}.`
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Reports({ result }: { result: ResultBody }) {
  const html = result.artifacts.items.find((a) => a.type === 'html' && a.access);
  return (
    <section aria-labelledby="reports">
      <h2 id="reports">Reports</h2>
      <ul>
        {result.artifacts.items.map((a) => (
          <li key={a.artifactId}>
            {a.access ? <a href={a.access.downloadUrl}>{`Download ${a.typeLabel}`}</a> : a.typeLabel}
            {` — ${a.availabilityLabel}`}
          </li>
        ))}
        <li>
          <a href={`/console/results/${result.resultId}/fhir`}>Download the FHIR R4 bundle (JSON)</a>
        </li>
      </ul>
      {html?.access ? (
        <iframe
          class="preview"
          title="Preview of the web page report"
          src={`/console/artifacts/${html.artifactId}/preview`}
          sandbox=""
          referrerpolicy="no-referrer"
        />
      ) : null}
    </section>
  );
}

/** The callback's state in words: delivered, failing since, waiting, held or never sent. */
function callbackState(callback: SubmissionCallbackRecord): string {
  const { event, failingSince } = callback;
  const failing = failingSince ? `failing since ${clockTime(failingSince)} UTC` : undefined;
  switch (event.deliveryStatus) {
    case 'delivered':
      return `Delivered at ${event.deliveredAt ? clockTime(event.deliveredAt) : '—'} UTC`;
    case 'failed':
      return event.failureReason === 'no_endpoint'
        ? 'Not sent: no callback URL was set when the result completed'
        : `Failed: every attempt failed${failing ? ` (${failing})` : ''}`;
    case 'endpoint_disabled':
      return `Held: your callback endpoint is disabled${failing ? ` (${failing})` : ''}`;
    default:
      return failing
        ? `Failing since ${clockTime(failingSince ?? '')} UTC: it will be tried again`
        : 'Waiting: it is being sent';
  }
}

/**
 * The submission's result.ready callback: its state and last attempt in words, a link to its
 * event, and (manage sessions only: read ones see no button) "Send the callback again".
 */
function Callback({
  detail,
  callback,
  csrf,
  sent,
}: {
  detail: SubmissionDetail;
  callback: SubmissionCallbackRecord | undefined;
  csrf: string | undefined;
  sent: boolean;
}) {
  const last = callback?.lastAttempt;
  return (
    <section aria-labelledby="callback">
      <h2 id="callback">Callback</h2>
      {sent ? <p role="status">The callback is being sent again, with the same event id.</p> : null}
      {callback ? (
        <dl class="facts">
          <dt>Callback status</dt>
          <dd>{callbackState(callback)}</dd>
          <dt>Last attempt</dt>
          <dd>{last ? `${clockTime(last.startedAt)} UTC: ${attemptWords(last)}` : 'None yet'}</dd>
          <dt>Event</dt>
          <dd>
            <a href={`/console/callbacks/events/${callback.event.eventId}`}>
              See every attempt of this callback
            </a>
          </dd>
        </dl>
      ) : (
        <p>
          {FINAL_WITHOUT_RESULT.has(detail.status)
            ? 'No callback: there is no result to send.'
            : 'Waiting: the result.ready callback is sent when the result completes.'}
        </p>
      )}
      {csrf && callback ? (
        <form method="post" action={`/console/submissions/${detail.submissionId}/resend-callback`}>
          <Csrf token={csrf} />
          <button type="submit">Send the callback again</button>
        </form>
      ) : null}
    </section>
  );
}

/** A step's deadline in words; a step that finished (completed or failed) is judged by when it did. */
function jobDeadline(job: SubmissionDetail['jobs'][number]): string {
  const finishedAt = job.completedAt ?? job.failedAt;
  const missed =
    finishedAt !== null && job.slaDeadlineAt !== null
      ? Date.parse(finishedAt) > Date.parse(job.slaDeadlineAt)
      : job.slaBreached;
  return deadlineWords({ slaDeadlineAt: job.slaDeadlineAt, missed, finished: finishedAt !== null });
}

/** One submission: its references and status, its steps as a timeline, its result and reports. */
export function Submission({
  detail,
  result,
  callback,
  manageCsrf,
  callbackSent,
}: {
  detail: SubmissionDetail;
  result: ResultBody | undefined;
  callback: SubmissionCallbackRecord | undefined;
  /** The CSRF token when the session may change things; undefined for a read session. */
  manageCsrf: string | undefined;
  callbackSent: boolean;
}) {
  return (
    <>
      <dl class="facts">
        <dt>Your submission reference</dt>
        <dd>{detail.partnerSubmissionId}</dd>
        <dt>Your subject reference</dt>
        <dd>{detail.partnerSubjectId}</dd>
        <dt>Status</dt>
        <dd>
          <span class={`badge status-${detail.status}`}>{detail.statusLabel}</span>
        </dd>
        <dt>Received</dt>
        <dd>{time(detail.createdAt)}</dd>
        <dt>Submission id</dt>
        <dd>
          <code>{detail.submissionId}</code>
        </dd>
      </dl>
      <Timeline detail={detail} />
      {result ? <Outcomes result={result} /> : <NoResult detail={detail} />}
      {result ? <Reports result={result} /> : null}
      <Callback detail={detail} callback={callback} csrf={manageCsrf} sent={callbackSent} />
    </>
  );
}
