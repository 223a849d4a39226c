import { type AgeRange, clampAge, isInRange } from '../submodels/age-range.js';
import { roundTo } from '../text/format.js';
import type { ScoredOutcome } from '../types.js';

/**
 * An equivalent age (heart age, dementia-risk age) read off a model fitted on `range`.
 * research §2.1.3: clamp or flag values outside the fitted range, since the model says nothing
 * there; we clamp and say so in the label. When the person's own age is outside the range the
 * model was evaluated at the bound, so an equivalent age would be anchored to the wrong age: none.
 */
export function boundedEquivalentAge(
  label: string,
  personAge: number,
  years: number,
  range: AgeRange,
): ScoredOutcome['equivalentAge'] {
  if (!isInRange(personAge, range) || !Number.isFinite(years)) return null;
  const bounded = clampAge(years, range);
  if (bounded === years) return { label, years: roundTo(years, 1) };
  const side = years > range.max ? `above ${range.max}, the oldest` : `below ${range.min}, the youngest`;
  return { label: `${label} (${side} age the model covers)`, years: bounded };
}
