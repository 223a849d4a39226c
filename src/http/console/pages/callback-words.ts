/** Why an attempt got no 2xx, in plain words (the API's errorClass values). */
export const ERROR_LABELS: Record<string, string> = {
  http_status: 'Your callback endpoint answered with an error status',
  timeout: 'Your callback endpoint did not answer in time',
  dns: 'The host name could not be resolved',
  connection_refused: 'The connection was refused',
  connection_reset: 'The connection was cut',
  tls: 'The secure connection could not be made',
  blocked_address: 'The host resolved to an address callbacks may not go to',
  invalid_url: 'The URL is not usable',
  transport: 'The delivery could not be sent',
};

/** A time as the console shows it: `2026-11-21 12:05:00` (UTC, said by the caller). */
export function clockTime(time: string): string {
  return time.replace('T', ' ').slice(0, 19);
}

/** An attempt's outcome in words: "Delivered", or why it failed with the endpoint's status. */
export function attemptWords(a: {
  outcome: string;
  statusCode: number | null;
  errorClass: string | null;
}): string {
  if (a.outcome === 'delivered')
    return a.statusCode === null ? 'Delivered' : `Delivered (HTTP ${a.statusCode})`;
  const why = a.errorClass ? (ERROR_LABELS[a.errorClass] ?? 'The delivery failed') : 'The delivery failed';
  return a.statusCode === null ? `Failed: ${why}` : `Failed: ${why} (HTTP ${a.statusCode})`;
}

/**
 * A processing deadline in words, saying which: met (finished in time), missed, or pending with
 * when it is due.
 */
export function deadlineWords(step: {
  slaDeadlineAt: string | null;
  missed: boolean;
  finished: boolean;
}): string {
  if (step.slaDeadlineAt === null) return 'No deadline';
  const due = `${clockTime(step.slaDeadlineAt)} UTC`;
  if (step.missed) return `Deadline missed (due ${due})`;
  return step.finished ? 'Deadline met' : `Deadline pending (due ${due})`;
}
