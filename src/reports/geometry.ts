import type { Tier } from '../domain/model/types.js';
import { TIER_LABELS } from './labels.js';
import type { ReportMarker, ReportOutcome } from './schema.js';

/**
 * Chart geometry shared by the html and pdf renderers, so both draw the same charts:
 * fractions 0..1 along a horizontal track.
 */

/** model-v1.md §3 tier thresholds on the 0..1 score. */
export const MEDIUM_FROM = 0.333;
export const HIGH_FROM = 0.5;

export interface Zone {
  tier: Exclude<Tier, 'unknown'>;
  label: string;
  from: number;
  to: number;
}

export const SCORE_ZONES: readonly Zone[] = [
  { tier: 'low', label: TIER_LABELS.low, from: 0, to: MEDIUM_FROM },
  { tier: 'medium', label: TIER_LABELS.medium, from: MEDIUM_FROM, to: HIGH_FROM },
  { tier: 'high', label: TIER_LABELS.high, from: HIGH_FROM, to: 1 },
];

/** Pale fills for the score zones and the tier badges, with their dark text colours (contrast ≥ 7:1). */
export const TIER_COLOURS: Readonly<Record<Tier, { fill: string; text: string }>> = {
  low: { fill: '#f6cfc9', text: '#7a1f14' },
  medium: { fill: '#f9e2a8', text: '#6b4a00' },
  high: { fill: '#c8e6cf', text: '#14532d' },
  unknown: { fill: '#e2e5ea', text: '#374151' },
};

export const INK = '#1f2933';
export const MUTED = '#4b5563';
export const RULE = '#d5dae1';
export const ACCENT = '#1d4e89';
export const TRACK = '#e6e9ee';
export const IN_RANGE = '#9fd3ad';
/** A value outside its range, and one within it (marker charts and labels). */
export const OUT_OF_RANGE = '#b42318';
export const WITHIN = '#14532d';

/** Where the score marker sits (null when the outcome failed and there is no score to show). */
export function scoreFraction(o: ReportOutcome): number | null {
  return o.status === 'failed' ? null : Math.min(1, Math.max(0, o.score));
}

export function scoreChartLabel(o: ReportOutcome): string {
  if (o.status === 'failed') return `${o.focus}: no score, the outcome could not be estimated.`;
  return `${o.focus}: score ${o.scoreText} of 1, band ${o.band.label}; the reference person scores 0.5.`;
}

export interface RangeBar {
  /** Axis ends in the marker's unit. */
  min: number;
  max: number;
  /** The range (or healthy level) drawn on the track, as fractions; null when there is none. */
  band: { from: number; to: number } | null;
  /** The value's position. */
  at: number;
}

/** The track for one measured marker; null when the marker was not measured. */
export function rangeBar(m: ReportMarker): RangeBar | null {
  if (m.value === null) return null;
  const value = m.value;
  const lower = m.interval?.lower ?? null;
  const upper = m.interval?.upper ?? null;
  let min = 0;
  let max: number;
  if (lower !== null && upper !== null) {
    const span = upper - lower;
    min = Math.max(0, lower - span * 0.75);
    max = upper + span * 0.75;
  } else if (upper !== null) {
    max = upper * 1.8;
  } else if (lower !== null) {
    max = lower * 2.5;
  } else {
    max = value > 0 ? value * 2 : 1;
  }
  if (value > max) max = value * 1.08;
  if (value < min) min = Math.max(0, value - (max - value) * 0.08);
  const frac = (x: number) => (x - min) / (max - min);
  const band = m.interval === null ? null : { from: frac(lower ?? min), to: frac(upper ?? max) };
  return { min, max, band, at: frac(value) };
}

export function rangeChartLabel(m: ReportMarker): string {
  if (m.value === null) return `${m.name}: not measured.`;
  const range = m.interval === null ? 'no reference range shown' : `range ${m.interval.text} ${m.unit}`;
  return `${m.name}: ${m.value} ${m.unit}; ${range}; ${m.positionLabel.toLowerCase()}.`;
}
