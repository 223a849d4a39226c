import type { Recovery } from '../../../operations/event-resend.js';
import type { EventDetail } from '../../event-schemas.js';
import { attemptWords, ERROR_LABELS } from './callback-words.js';
import { DELIVERY_LABELS, FAILURE_LABELS, when } from './callbacks.js';
import { Csrf } from './layout.js';

function Attempts({ event }: { event: EventDetail }) {
  if (event.attempts.length === 0) return <p>No delivery attempt was made.</p>;
  return (
    <table class="list">
      <caption>Delivery attempts, oldest first</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">At (UTC)</th>
          <th scope="col">Outcome</th>
          <th scope="col">Your callback endpoint's status</th>
          <th scope="col">Took</th>
          <th scope="col">What your callback endpoint answered</th>
        </tr>
      </thead>
      <tbody>
        {event.attempts.map((a) => (
          <tr key={a.deliveryId}>
            <td>{a.attempt}</td>
            <td>{when(a.at)}</td>
            <td>
              {a.outcome === 'delivered' ? 'Delivered' : 'Failed'}
              {a.errorClass ? `: ${ERROR_LABELS[a.errorClass] ?? 'the delivery failed'}` : ''}
            </td>
            <td>{a.statusCode ?? 'No answer'}</td>
            <td>{a.durationMs} ms</td>
            <td>{a.responseSnippet ? <code class="snippet">{a.responseSnippet}</code> : '—'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** One event: its delivery, its attempts and what was answered, and (manage) "Redeliver". */
export function EventView({
  event,
  manageCsrf,
  redelivered,
}: {
  event: EventDetail;
  manageCsrf: string | undefined;
  redelivered: boolean;
}) {
  const lastAttempt = event.attempts.filter((a) => a.kind === 'delivery').at(-1);
  return (
    <>
      {redelivered ? (
        <p class="notice" role="status">
          The event is being sent again, with the same event id.
        </p>
      ) : null}
      <dl>
        <dt>Event id</dt>
        <dd>
          <code>{event.eventId}</code>
        </dd>
        <dt>Type</dt>
        <dd>{event.type}</dd>
        <dt>Delivery</dt>
        <dd>{DELIVERY_LABELS[event.deliveryStatus]}</dd>
        <dt>Why it failed</dt>
        <dd>{event.failureReason ? (FAILURE_LABELS[event.failureReason] ?? 'Failed') : '—'}</dd>
        <dt>Created (UTC)</dt>
        <dd>{when(event.createdAt)}</dd>
        <dt>Delivered (UTC)</dt>
        <dd>{when(event.deliveredAt, 'Not yet')}</dd>
        <dt>Last attempt</dt>
        <dd>{lastAttempt ? `${attemptWords(lastAttempt)}, at ${when(lastAttempt.at)} UTC` : 'None yet'}</dd>
        <dt>Your submission reference</dt>
        <dd>
          <a href={`/console/submissions/${event.submissionId}`}>{event.partnerSubmissionId}</a>
        </dd>
        <dt>Your subject reference</dt>
        <dd>{event.partnerSubjectId}</dd>
      </dl>
      {manageCsrf !== undefined ? (
        <form method="post" action={`/console/callbacks/events/${event.eventId}/redeliver`}>
          <Csrf token={manageCsrf} />
          <button type="submit">Redeliver</button>
        </form>
      ) : null}
      <h2>Attempts</h2>
      <Attempts event={event} />
      <h2>The body as signed</h2>
      <pre class="body">{event.body}</pre>
      <p>
        <a href="/console/callbacks">Back to the callbacks</a>
      </p>
    </>
  );
}

/** A recovery's progress: its events by their delivery status now. */
export function RecoveryView({ recovery }: { recovery: Recovery }) {
  const p = recovery.progress;
  return (
    <>
      <p role="status">
        {recovery.status === 'running' ? 'Running: some events are still being sent.' : 'Finished.'}{' '}
        {recovery.eventCount} events of the window were queued again.
      </p>
      <dl>
        <dt>Window (UTC)</dt>
        <dd>
          {when(recovery.since)} to {when(recovery.until, 'the time it started')}
        </dd>
        <dt>Started (UTC)</dt>
        <dd>{when(recovery.createdAt)}</dd>
      </dl>
      <table class="list">
        <caption>The recovered events by delivery status now</caption>
        <thead>
          <tr>
            <th scope="col">Pending</th>
            <th scope="col">Delivered</th>
            <th scope="col">Failed again</th>
            <th scope="col">Held (callback endpoint disabled)</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>{p.pending}</td>
            <td>{p.delivered}</td>
            <td>{p.failed}</td>
            <td>{p.endpointDisabled}</td>
          </tr>
        </tbody>
      </table>
      <p>
        <a href={`/console/callbacks/recoveries/${recovery.recoveryId}`}>Reload the progress</a>
      </p>
      <p>
        <a href="/console/callbacks">Back to the callbacks</a>
      </p>
    </>
  );
}
