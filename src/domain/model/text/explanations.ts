import type { FactorEffect } from '../outcomes/estimate.js';
import type { Contribution } from '../types.js';

/** Differences smaller than this are treated as no difference (floating-point noise). */
const NEUTRAL_EPSILON = 1e-9;

function direction(difference: number): Contribution['direction'] {
  if (difference > NEUTRAL_EPSILON) return 'unfavourable';
  if (difference < -NEUTRAL_EPSILON) return 'favourable';
  return 'neutral';
}

/** Per-factor contributions, largest absolute first (model-v1 §5); ties keep the model's order. */
export function toContributions(factors: readonly FactorEffect[]): Contribution[] {
  return factors
    .map((f) => ({
      factor: f.factor,
      label: f.label,
      logHazardDifference: Math.round(f.difference * 1e6) / 1e6,
      direction: direction(f.difference),
    }))
    .sort((a, b) => Math.abs(b.logHazardDifference) - Math.abs(a.logHazardDifference));
}

/**
 * model-v1 §5: name the two largest unfavourable and the largest favourable contributions. A
 * factor carrying at least half of all the unfavourable log-hazard "accounts for most of the
 * difference".
 */
export function explain(factors: readonly FactorEffect[]): string[] {
  const named = factors.filter((f): f is FactorEffect & { clause: () => string } => f.clause !== null);
  const unfavourable = named
    .filter((f) => f.difference > NEUTRAL_EPSILON)
    .sort((a, b) => b.difference - a.difference);
  const favourable = named
    .filter((f) => f.difference < -NEUTRAL_EPSILON)
    .sort((a, b) => a.difference - b.difference);
  if (unfavourable.length === 0 && favourable.length === 0) {
    return ['Nothing in your answers or results moves this estimate away from the reference.'];
  }
  const totalUnfavourable = factors.reduce((s, f) => s + Math.max(0, f.difference), 0);
  const sentences = unfavourable.slice(0, 2).map((f) => {
    const most = f.difference >= totalUnfavourable / 2;
    return `${f.clause()} and ${most ? 'accounts for most of' : 'adds to'} the difference from the reference.`;
  });
  const best = favourable[0];
  if (best !== undefined) sentences.push(`${best.clause()}, which works in your favour.`);
  return sentences;
}
