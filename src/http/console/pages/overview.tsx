import { type CallbackNow, durationText, type WindowStats } from '../overview-stats.js';
import { attemptWords, clockTime } from './callback-words.js';
import { HourlyChart } from './chart.js';

export interface OverviewData {
  day: WindowStats;
  week: WindowStats;
  hours: Array<{ start: string; count: number }>;
  callbacks: CallbackNow;
}

function delivered(w: WindowStats): string {
  const { delivered, failed, failing, held } = w.callbacks;
  if (w.callbackSuccess === null) return 'None sent yet';
  const sent = delivered + failed + failing + held;
  return `${(w.callbackSuccess * 100).toFixed(1)} % (${delivered} of ${sent} sent; those on their first try not counted)`;
}

const ROWS: Array<{ label: string; value: (w: WindowStats) => string }> = [
  { label: 'Accepted', value: (w) => String(w.accepted) },
  { label: 'Completed', value: (w) => String(w.completed) },
  { label: 'Failed', value: (w) => String(w.failed) },
  { label: 'Rejected', value: (w) => String(w.rejected) },
  { label: 'Acceptance to completion, median (p50)', value: (w) => durationText(w.p50Ms) },
  { label: 'Acceptance to completion, p95', value: (w) => durationText(w.p95Ms) },
  { label: 'Processing deadline (SLA) missed', value: (w) => String(w.slaBreaches) },
  { label: 'Callbacks delivered', value: delivered },
  {
    label: 'Callbacks not delivered',
    value: (w) =>
      `${w.callbacks.failing} failing (waiting after a failed attempt), ${w.callbacks.failed} failed ` +
      `(every attempt), ${w.callbacks.held} held (callback endpoint disabled)`,
  },
  { label: 'Callbacks on their first try', value: (w) => String(w.callbacks.pending) },
  { label: 'Callbacks not sent (no callback URL)', value: (w) => String(w.callbacks.notSent) },
];

function waitingWords(n: number): string {
  if (n === 0) return '';
  return ` ${n === 1 ? '1 event is' : `${n} events are`} waiting to be sent again after a failed attempt.`;
}

/**
 * The callbacks now, in words: failing (the attempts that failed in a row and why the newest did,
 * or events waiting after a failure while others go through) or going through.
 */
function CallbacksNow({ now }: { now: CallbackNow }) {
  const { last, lastFailure } = now;
  const waiting = waitingWords(now.waitingAfterFailure);
  if (!last) return <p>No callback has been sent yet.{waiting}</p>;
  const failingNow = now.failedInARow > 0;
  if (!failingNow && now.waitingAfterFailure === 0) {
    return <p>Callbacks are going through: the last attempt, at {clockTime(last.at)} UTC, was delivered.</p>;
  }
  const streak = now.allFailed
    ? `every one of the last ${now.failedInARow} attempts failed`
    : `the last ${now.failedInARow === 1 ? 'attempt' : `${now.failedInARow} attempts`} failed`;
  return (
    <div class="warning" role="status">
      <p>
        {failingNow ? (
          <>
            <strong>Callbacks are currently failing</strong>: {streak}.
          </>
        ) : (
          <strong>Some callbacks are failing.</strong>
        )}
        {waiting}
        {lastFailure
          ? ` The newest failed attempt, at ${clockTime(lastFailure.at)} UTC: ${attemptWords(lastFailure)}.`
          : ''}
        {!failingNow ? ` The last attempt, at ${clockTime(last.at)} UTC, was delivered.` : ''}
        {failingNow && now.lastDeliveredAt
          ? ` The last delivered one was at ${clockTime(now.lastDeliveredAt)} UTC.`
          : ''}
      </p>
      <p>
        <a href="/console/callbacks?deliveryStatus=pending">See the callbacks waiting to be sent</a>
      </p>
    </div>
  );
}

/** The overview: the last 24 hours and 7 days side by side, and submissions per hour. */
export function Overview({ data }: { data: OverviewData }) {
  return (
    <>
      <section aria-labelledby="callbacks-now">
        <h2 id="callbacks-now">Callbacks now</h2>
        <CallbacksNow now={data.callbacks} />
      </section>
      <section aria-labelledby="figures">
        <h2 id="figures">Submissions and callbacks</h2>
        <table class="figures">
          <caption>Submissions received in each period, by what became of them</caption>
          <thead>
            <tr>
              <th scope="col">Figure</th>
              <th scope="col">Last 24 hours</th>
              <th scope="col">Last 7 days</th>
            </tr>
          </thead>
          <tbody>
            {ROWS.map((row) => (
              <tr key={row.label}>
                <th scope="row">{row.label}</th>
                <td>{row.value(data.day)}</td>
                <td>{row.value(data.week)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        {data.week.truncated ? (
          <p class="hint">Only the most recent submissions of the period were counted.</p>
        ) : null}
        <p>
          <a href="/console/submissions?status=failed">See failed submissions</a>
        </p>
      </section>
      <section aria-labelledby="per-hour">
        <h2 id="per-hour">Per hour</h2>
        <HourlyChart hours={data.hours} />
      </section>
    </>
  );
}
