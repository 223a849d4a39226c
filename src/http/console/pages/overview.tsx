import { durationText, type WindowStats } from '../overview-stats.js';
import { HourlyChart } from './chart.js';

export interface OverviewData {
  day: WindowStats;
  week: WindowStats;
  hours: Array<{ start: string; count: number }>;
}

const percent = (rate: number | null) =>
  rate === null ? 'No callbacks finished' : `${(rate * 100).toFixed(1)} %`;

const ROWS: Array<{ label: string; value: (w: WindowStats) => string }> = [
  { label: 'Accepted', value: (w) => String(w.accepted) },
  { label: 'Completed', value: (w) => String(w.completed) },
  { label: 'Failed', value: (w) => String(w.failed) },
  { label: 'Rejected', value: (w) => String(w.rejected) },
  { label: 'Acceptance to completion, median (p50)', value: (w) => durationText(w.p50Ms) },
  { label: 'Acceptance to completion, p95', value: (w) => durationText(w.p95Ms) },
  { label: 'Processing deadline (SLA) missed', value: (w) => String(w.slaBreaches) },
  {
    label: 'Callbacks delivered',
    value: (w) =>
      `${percent(w.callbackSuccess)} (${w.callbacks.delivered} delivered, ${w.callbacks.failed} failed, ` +
      `${w.callbacks.notSent} not sent: no callback URL)`,
  },
];

/** The overview: the last 24 hours and 7 days side by side, and submissions per hour. */
export function Overview({ data }: { data: OverviewData }) {
  return (
    <>
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
