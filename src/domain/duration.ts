import { z } from 'zod';

/**
 * The one way a duration is written, wherever one is read: settings (`WEBHOOK_RETRY_SCHEDULE`,
 * `JOB_RETENTION`, …), the operator CLI (`--expires-in`, `--activate-in`), the API
 * (`activateIn` of a secret rotation) and the console's forms. A whole number and one unit:
 * `ms`, `s`, `m`, `h` or `d`, e.g. `500ms`, `30s`, `5m`, `24h`, `7d`.
 */
export const DURATION_UNITS_MS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

const DURATION = /^(\d+)(ms|s|m|h|d)$/;

/** How a duration is written, as an error message shows it. */
export const DURATION_EXAMPLES = '500ms, 30s, 5m, 24h or 7d';

/** The duration in milliseconds, or undefined when `text` is not one (or too long to count). */
export function durationMs(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  const ms = Number(m[1]) * (DURATION_UNITS_MS[m[2] ?? ''] ?? Number.NaN);
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** A duration in its largest whole unit (`7d`, `90s`, `250ms`). */
export function durationText(ms: number): string {
  const [unit, size] = Object.entries(DURATION_UNITS_MS).findLast(([, size]) => ms % size === 0) ?? ['ms', 1];
  return `${ms / size}${unit}`;
}

const UNIT_WORDS: Readonly<Record<string, readonly [string, string]>> = {
  ms: ['millisecond', 'milliseconds'],
  s: ['second', 'seconds'],
  m: ['minute', 'minutes'],
  h: ['hour', 'hours'],
  d: ['day', 'days'],
};

/** A duration in words for a label (`24h` → `24 hours`, `1h` → `1 hour`). */
export function durationWords(text: string): string {
  const m = DURATION.exec(text);
  const words = m && UNIT_WORDS[m[2] ?? ''];
  if (!m || !words) throw new Error(`${text} is not a duration such as ${DURATION_EXAMPLES}`);
  const n = Number(m[1]);
  return `${n} ${n === 1 ? words[0] : words[1]}`;
}

/** A string that is a duration (the settings' and request bodies' schemas). */
export const durationSchema = z
  .string()
  .refine((text) => durationMs(text) !== undefined, `must be a duration such as ${DURATION_EXAMPLES}`);
