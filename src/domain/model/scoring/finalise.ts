import type { OutcomeId } from '../../submission/outcomes.js';
import type { Estimate } from '../outcomes/estimate.js';
import { clampAge, isInRange } from '../submodels/age-range.js';
import { explain, toContributions } from '../text/explanations.js';
import { significant } from '../text/format.js';
import { NOTICES } from '../text/notices.js';
import type { ReferencePlacement, ScoredOutcome, Tier } from '../types.js';
import { capTier, EXISTING_CONDITION_MAX_SCORE, placementForScore, round3, tierForScore } from './score.js';

export interface PersonContext {
  ageYears: number;
  smokingNotShared: boolean;
}

function nullableSignificant(x: number | null): number | null {
  return x === null ? null : significant(x);
}

/** Drops repeated notices, keeping first-seen order (the lists are a handful long). */
function unique(notices: readonly string[]): string[] {
  const out: string[] = [];
  for (const n of notices) if (!out.includes(n)) out.push(n);
  return out;
}

/** A failed outcome (model-v1 §4): score 0, indeterminate, tier unknown, and why. */
export function failedOutcome(
  outcomeId: OutcomeId,
  est: Estimate,
  notices: readonly string[],
): ScoredOutcome {
  return {
    outcomeId,
    status: 'failed',
    score: 0,
    placement: 'indeterminate',
    tier: 'unknown',
    notices: unique(notices),
    subModelId: est.subModelId,
    subModelLabel: est.subModelLabel,
    risk: null,
    referenceRisk: null,
    riskKind: est.riskKind,
    horizonYears: est.horizonYears,
    inputsUsed: est.inputsUsed,
    inputsImputed: est.inputsImputed,
    contributions: [],
    explanation: [],
    equivalentAge: null,
    extras: [],
  };
}

/**
 * Applies the shared rules of model-v1 §3–§4 and §7 to a module's estimate: the existing-condition
 * rule (which beats placement rules (b) and (c)), the indeterminate placement rules, tiers and their
 * absolute-risk caps (all on the unrounded score), and rounding.
 */
export function finalise(outcomeId: OutcomeId, est: Estimate, person: PersonContext): ScoredOutcome {
  const existing = est.existingCondition !== null;
  const range = est.fittedAgeRange;
  const outsideRange = range !== null && !isInRange(person.ageYears, range);
  const smokingUnknown = est.hasSmokingTerm && person.smokingNotShared;

  const notices: string[] = [];
  if (existing) notices.push(NOTICES.existingCondition(est.existingCondition ?? ''));
  if (est.score === null && !existing) {
    return failedOutcome(outcomeId, est, [est.failureNotice ?? NOTICES.documentsOnly, ...est.notices]);
  }
  if (outsideRange) notices.push(NOTICES.outsideAgeRange(range, clampAge(person.ageYears, range)));
  if (smokingUnknown) notices.push(existing ? NOTICES.smokingNotShared : NOTICES.smokingNotSharedPlacement);
  if (est.sbpStraddle && !existing) notices.push(NOTICES.sbpStraddle);

  let score: number;
  let placement: ReferencePlacement;
  let tier: Tier;
  if (existing) {
    score = Math.min(est.score ?? EXISTING_CONDITION_MAX_SCORE, EXISTING_CONDITION_MAX_SCORE);
    placement = 'below_reference';
    tier = 'low';
  } else {
    score = est.score ?? 0;
    const indeterminate = est.sbpStraddle || smokingUnknown || outsideRange;
    placement = indeterminate
      ? 'indeterminate'
      : est.alwaysBelowReference
        ? 'below_reference'
        : placementForScore(score);
    const uncapped = tierForScore(score);
    tier = capTier(uncapped, est.tierCap?.cap ?? null);
    if (tier !== uncapped && est.tierCap !== null) notices.push(est.tierCap.notice);
  }
  notices.push(...est.notices);

  return {
    outcomeId,
    status: existing || !est.partial ? 'completed' : 'partial',
    score: round3(score),
    placement,
    tier,
    notices: unique(notices),
    subModelId: est.subModelId,
    subModelLabel: est.subModelLabel,
    risk: nullableSignificant(est.risk),
    referenceRisk: nullableSignificant(est.referenceRisk),
    riskKind: est.riskKind,
    horizonYears: est.horizonYears,
    inputsUsed: est.inputsUsed,
    inputsImputed: est.inputsImputed,
    contributions: toContributions(est.factors),
    explanation: est.factors.length > 0 ? explain(est.factors) : [],
    equivalentAge: est.equivalentAge,
    extras: est.extras,
  };
}
