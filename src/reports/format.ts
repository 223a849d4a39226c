import type { ReportOutcome } from './schema.js';

/** Number and date wording shared by the report model and the renderers. Locale-independent. */

function trimZeros(s: string): string {
  return s.includes('.') ? s.replace(/\.?0+$/, '') : s;
}

/** A derived figure for people: 3 significant-ish digits, no trailing zeros (72.4713 → "72.5"). */
export function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  const abs = Math.abs(n);
  const digits = abs >= 100 ? 0 : abs >= 10 ? 1 : 2;
  return trimZeros(n.toFixed(digits));
}

/** A score in 0..1, shown with up to 3 decimals (the precision it is stored with). */
export function formatScore(score: number): string {
  return trimZeros(score.toFixed(3));
}

/** A probability 0..1 as a percentage: "7.4%", "0.85%". */
export function formatPercent(p: number): string {
  const pct = p * 100;
  return `${trimZeros(pct.toFixed(pct < 1 ? 2 : 1))}%`;
}

/** A value with its unit, the way the report prints it ("1.6 mmol/L", "12%", "26.1 kg/m²"). */
export function withUnit(value: string, unit: string | null): string {
  if (unit === null || unit === '') return value;
  return unit === '%' ? `${value}%` : `${value} ${unit}`;
}

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** "20 November 2026" for an ISO date or date-time (UTC); the input itself when unparseable. */
export function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** "20 November 2026, 09:30 UTC" for an ISO date-time. */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const hh = String(d.getUTCHours()).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${formatDate(iso)}, ${hh}:${mm} UTC`;
}

/** "61 years (your age: 54)". */
export function equivalentAgeText(age: { years: number }, ageYears: number): string {
  return `${formatNumber(age.years)} years (your age: ${ageYears})`;
}

/** "Next 10 years", or "No fixed period": each area's period, the same words everywhere. */
export function horizonShort(years: number | null): string {
  return years === null ? 'No fixed period' : `Next ${formatNumber(years)} years`;
}

/** The method line under an outcome: the published method by name, and what was estimated. */
export function methodText(o: ReportOutcome): string {
  const parts = [`Method: ${o.method.subModelLabel}.`];
  if (o.method.inputsImputed.length > 0)
    parts.push(`Estimated inputs: ${o.method.inputsImputed.join(', ')}.`);
  return parts.join(' ');
}
