import type { TierCap } from '../scoring/score.js';
import type { AgeRange } from '../submodels/age-range.js';
import type { ScoredOutcome } from '../types.js';

/** One factor's log-hazard difference, person minus reference, with the words that name it. */
export interface FactorEffect {
  factor: string;
  label: string;
  difference: number;
  /**
   * Builds a clause describing the person's value against the reference, matching the sign of the
   * difference (e.g. "Your HDL cholesterol (0.9 mmol/L) is below the target of 1.0 mmol/L").
   * Lazy, because only the few factors an explanation names need their words. null for factors
   * that are never named (an age allowance).
   */
  clause: (() => string) | null;
}

/**
 * What an outcome module computes before the shared rules of model-v1 §3–§4 (existing condition,
 * placement, tiers and caps, rounding) turn it into a ScoredOutcome.
 */
export interface Estimate {
  subModelId: string;
  subModelLabel: string;
  riskKind: ScoredOutcome['riskKind'];
  horizonYears: number | null;
  risk: number | null;
  referenceRisk: number | null;
  /** Unrounded score; null when the model cannot be computed. */
  score: number | null;
  /** Absolute-risk tier cap and the sentence that explains it. */
  tierCap: { cap: TierCap; notice: string } | null;
  /** Whether the sub-model has a smoking variable (placement rule (b)). */
  hasSmokingTerm: boolean;
  /** Fitted age range of the sub-model that produced the score (placement rule (c)). */
  fittedAgeRange: AgeRange | null;
  /** Placement rule (a): the SBP-varied scores straddle 0.5. */
  sbpStraddle: boolean;
  /** Scores that are by definition below the reference (kidney function stage). */
  alwaysBelowReference: boolean;
  /** Plain-language name of a reported condition in this area (model-v1 §3), else null. */
  existingCondition: string | null;
  /** Scored from the questionnaire alone (no blood markers). */
  partial: boolean;
  /** Why the score could not be computed (when `score` is null). */
  failureNotice: string | null;
  notices: string[];
  inputsUsed: string[];
  inputsImputed: string[];
  factors: FactorEffect[];
  equivalentAge: ScoredOutcome['equivalentAge'];
  extras: ScoredOutcome['extras'];
}

/** Fields every estimate starts from; modules override what applies to them. */
export function baseEstimate(subModelId: string, subModelLabel: string): Estimate {
  return {
    subModelId,
    subModelLabel,
    riskKind: 'relative',
    horizonYears: null,
    risk: null,
    referenceRisk: null,
    score: null,
    tierCap: null,
    hasSmokingTerm: false,
    fittedAgeRange: null,
    sbpStraddle: false,
    alwaysBelowReference: false,
    existingCondition: null,
    partial: false,
    failureNotice: null,
    notices: [],
    inputsUsed: [],
    inputsImputed: [],
    factors: [],
    equivalentAge: null,
    extras: [],
  };
}
