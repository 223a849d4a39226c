import type { Sex } from '../derived/sex.js';
import type { AgeRange } from './age-range.js';

/**
 * UK Biobank Dementia Risk Score, competing-risk (Fine–Gray) version (Anatürk M et al., BMJ Ment
 * Health 2023;26:e300719). risk14 = 1 − 0.9916195^exp(LP), the published baseline (research
 * §2.2.2); risk10 = 1 − 0.9962543^exp(LP), the baseline of the authors' saved fit at 3,652 days
 * (model-v1.1 §1): read from their published model, not published by them, its 10-year calibration
 * not reported.
 */

export const UKBDRS_AGE_RANGE: AgeRange = { min: 50, max: 73 };

/**
 * research §2.2.2 [IMPL, MelisAnaturk/dementia_risk_score@results/crr_ukbdrs_coefficients.csv,
 * full precision; centring values and baseline from results/UKB-DRS_Calculator.xlsx "Hidden"].
 */
export const UKBDRS = {
  age: 0.177692959251294,
  ageCentre: 59.97,
  parentalDementia: 0.430976053237681,
  education: -0.0409925728007542,
  educationCentre: 13.54,
  diabetes: 0.536470125918681,
  deprivation: 0.227535362193283,
  depression: 0.556016474679774,
  strokeTia: 0.654852204288696,
  hypertension: 0.159181761673448,
  highCholesterol: 0.103934423846803,
  livesAlone: 0.140912692178426,
  male: 0.168726275413058,
  baselineSurvival14: 0.9916195,
  /**
   * model-v1.1 §1 [MelisAnaturk/dementia_risk_score@929ea73, results/ukbdrs.cr.train.rda: the
   * fit's baseline cumulative incidence at 3,652 days, with the published centring].
   */
  baselineSurvival10: 0.9962543,
} as const;

export interface UkbdrsInput {
  sex: Sex;
  ageYears: number;
  educationYears: number;
  parentalDementia: boolean;
  diabetes: boolean;
  strokeTia: boolean;
  /** Not collected by the service: model-v1 §7 sets them to 0; kept as inputs so the test vectors can use them. */
  deprivation?: boolean;
  depression?: boolean;
  hypertension?: boolean;
  highCholesterol?: boolean;
  livesAlone?: boolean;
}

export interface UkbdrsTerms {
  age: number;
  sex: number;
  education: number;
  parentalDementia: number;
  diabetes: number;
  strokeTia: number;
  /** The uncollected binaries together (always 0 in the service). */
  uncollected: number;
}

const flag = (v: boolean | undefined, beta: number) => (v === true ? beta : 0);

export function ukbdrsTerms(input: UkbdrsInput): UkbdrsTerms {
  const b = UKBDRS;
  return {
    age: b.age * (input.ageYears - b.ageCentre),
    sex: input.sex === 'male' ? b.male : 0,
    education: b.education * (input.educationYears - b.educationCentre),
    parentalDementia: flag(input.parentalDementia, b.parentalDementia),
    diabetes: flag(input.diabetes, b.diabetes),
    strokeTia: flag(input.strokeTia, b.strokeTia),
    uncollected:
      flag(input.deprivation, b.deprivation) +
      flag(input.depression, b.depression) +
      flag(input.hypertension, b.hypertension) +
      flag(input.highCholesterol, b.highCholesterol) +
      flag(input.livesAlone, b.livesAlone),
  };
}

export function ukbdrsLinearPredictor(t: UkbdrsTerms): number {
  return t.age + t.sex + t.education + t.parentalDementia + t.diabetes + t.strokeTia + t.uncollected;
}

/** The published 14-year risk: model 1.1 keeps it for the calculator's at-risk line only. */
export function ukbdrsRisk14(linearPredictor: number): number {
  return 1 - UKBDRS.baselineSurvival14 ** Math.exp(linearPredictor);
}

/** The 10-year risk the cognitive outcome is scored on (model-v1.1 §1). */
export function ukbdrsRisk10(linearPredictor: number): number {
  return 1 - UKBDRS.baselineSurvival10 ** Math.exp(linearPredictor);
}

/**
 * Dementia-risk age, research §3.2 item 5: age + (LP − LP_ref) / β_age. The model is linear
 * in age, so this is the age at which the reference profile carries the person's risk.
 */
export function dementiaRiskAge(ageYears: number, personLp: number, referenceLp: number): number {
  return ageYears + (personLp - referenceLp) / UKBDRS.age;
}
