import type { ReferencePlacement, Tier } from '../types.js';

/**
 * The score (model-v1 §3): R_ref / (R_ref + R). 0.5 at the reference, 1/3 at twice the
 * reference risk, 0.2 at four times; it needs no clamp, since both risks are positive.
 */
export function relativeScore(referenceRisk: number, risk: number): number {
  return referenceRisk / (referenceRisk + risk);
}

/** Scores are reported to 3 decimals; thresholds are applied before rounding. */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export const HIGH_TIER_MIN = 0.5;
export const MEDIUM_TIER_MIN = 0.333;

/** model-v1 §3: high ≥ 0.5, medium 0.333–<0.5, low below, on the unrounded score. */
export function tierForScore(score: number): Exclude<Tier, 'unknown'> {
  if (score >= HIGH_TIER_MIN) return 'high';
  if (score >= MEDIUM_TIER_MIN) return 'medium';
  return 'low';
}

export type TierCap = 'low' | 'medium';

/** Lowers a tier to at most `cap`. */
export function capTier(tier: Exclude<Tier, 'unknown'>, cap: TierCap | null): Exclude<Tier, 'unknown'> {
  if (cap === 'low') return 'low';
  if (cap === 'medium' && tier === 'high') return 'medium';
  return tier;
}

/** Placement before the indeterminate rules: at or above 0.5 is above the reference. */
export function placementForScore(score: number): Exclude<ReferencePlacement, 'indeterminate'> {
  return score >= 0.5 ? 'above_reference' : 'below_reference';
}

/** model-v1 §3(a): the SBP-varied scores straddle 0.5 (lowest < 0.5 ≤ highest). */
export function straddlesReference(lowest: number, highest: number): boolean {
  return lowest < 0.5 && highest >= 0.5;
}

/** model-v1 §3: the score of a reported existing condition is at most this. */
export const EXISTING_CONDITION_MAX_SCORE = 0.25;
