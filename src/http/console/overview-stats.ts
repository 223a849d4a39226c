import type {
  ActivityRecord,
  ActivitySubmission,
  CallbackHealthRecord,
  RecentAttempt,
} from '../../store/tenant-access.js';

/** The overview's figures for one window (issue 31). */
export interface WindowStats {
  accepted: number;
  completed: number;
  failed: number;
  rejected: number;
  /** Acceptance to completion, of the submissions completed; null when none was. */
  p50Ms: number | null;
  p95Ms: number | null;
  slaBreaches: number;
  /**
   * Callbacks delivered out of those sent to an endpoint and no longer on their first try:
   * delivered, failed, failing (waiting after a failed attempt) or held; null when there are none.
   */
  callbackSuccess: number | null;
  callbacks: ActivityRecord['callbacks'];
  /** More submissions were received than were counted (the newest were). */
  truncated: boolean;
}

/** The value at quantile `q` (nearest rank) of ascending `sorted`. */
function quantile(sorted: number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil(q * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] ?? null;
}

function breached(s: ActivitySubmission, now: Date): boolean {
  if (s.slaDeadlineAt === null) return false;
  const deadline = Date.parse(s.slaDeadlineAt);
  const final = s.status === 'completed' || s.status === 'failed' || s.status === 'rejected';
  const finished = final ? (s.completedAt ?? s.finishedAt) : null;
  return finished !== null ? Date.parse(finished) > deadline : now.getTime() > deadline;
}

export function windowStats(activity: ActivityRecord, now: Date): WindowStats {
  const count = (status: string) => activity.submissions.filter((s) => s.status === status).length;
  const durations = activity.submissions
    .filter((s) => s.completedAt !== null)
    .map((s) => Math.max(0, Date.parse(s.completedAt!) - Date.parse(s.receivedAt)))
    .sort((a, b) => a - b);
  const { delivered, failed, failing, held } = activity.callbacks;
  const tried = delivered + failed + failing + held;
  return {
    accepted: activity.submissions.length,
    completed: count('completed'),
    failed: count('failed'),
    rejected: count('rejected'),
    p50Ms: quantile(durations, 0.5),
    p95Ms: quantile(durations, 0.95),
    slaBreaches: activity.submissions.filter((s) => breached(s, now)).length,
    callbackSuccess: tried === 0 ? null : delivered / tried,
    callbacks: activity.callbacks,
    truncated: activity.truncated,
  };
}

/** Submissions received in each of the last 24 whole hours up to now (UTC), oldest first. */
export function hourlyCounts(
  submissions: ActivitySubmission[],
  now: Date,
): Array<{ start: string; count: number }> {
  const HOUR = 3_600_000;
  const currentHour = Math.floor(now.getTime() / HOUR) * HOUR;
  const first = currentHour - 23 * HOUR;
  const counts = new Array<number>(24).fill(0);
  for (const s of submissions) {
    const index = Math.floor((Date.parse(s.receivedAt) - first) / HOUR);
    if (index >= 0 && index < 24) counts[index] = (counts[index] ?? 0) + 1;
  }
  return counts.map((count, i) => ({ start: new Date(first + i * HOUR).toISOString(), count }));
}

/** A duration as people read it: 850 ms, 4.2 s, 3 min 5 s. */
export function durationText(ms: number | null): string {
  if (ms === null) return 'No completions';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** The overview's "currently failing", from the newest delivery attempts (newest first). */
export interface CallbackNow {
  /** The newest attempts that failed in a row (0 when the newest was delivered or none was made). */
  failedInARow: number;
  /** Whether every attempt looked at failed (so the streak may be longer). */
  allFailed: boolean;
  last: RecentAttempt | undefined;
  /** The newest failed attempt among those looked at. */
  lastFailure: RecentAttempt | undefined;
  /** The newest delivered attempt's time, among those looked at. */
  lastDeliveredAt: string | undefined;
  waitingAfterFailure: number;
}

export function callbackNow(health: CallbackHealthRecord): CallbackNow {
  const firstDelivered = health.recent.findIndex((a) => a.outcome === 'delivered');
  const failedInARow = firstDelivered === -1 ? health.recent.length : firstDelivered;
  return {
    failedInARow,
    allFailed: health.recent.length > 0 && firstDelivered === -1,
    last: health.recent[0],
    lastFailure: health.recent.find((a) => a.outcome !== 'delivered'),
    lastDeliveredAt: firstDelivered === -1 ? undefined : health.recent[firstDelivered]?.at,
    waitingAfterFailure: health.waitingAfterFailure,
  };
}
