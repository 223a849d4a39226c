import type { Sex } from '../derived/sex.js';
import type { AgeRange } from './age-range.js';

/**
 * Framingham 2008 general cardiovascular disease, 10-year risk (D'Agostino RB Sr et al.,
 * Circulation 2008;117:743-53). risk10 = 1 − S0(10)^exp(Σβx − group mean); one SBP term,
 * the untreated one unless on BP medication.
 *
 * Do not compare against MelisAnaturk/dementia_risk_score@scripts/5_framingham.R: research
 * §2.1.2 documents that it applies exp twice (lipid) and leaves BMI unlogged (BMI model).
 */

export const FRAMINGHAM_AGE_RANGE: AgeRange = { min: 30, max: 74 };

export interface FraminghamLipidCoefficients {
  lnAge: number;
  lnTotalCholesterol: number;
  lnHdl: number;
  lnSbpUntreated: number;
  lnSbpTreated: number;
  smoker: number;
  diabetes: number;
  groupMean: number;
  baselineSurvival10: number;
}

/**
 * Lipid model: research §2.1.2 table 1 [VERIFIED, framinghamheartstudy.org 10-year CVD page;
 * group means on the Medscape Framingham-2008 calculator].
 */
export const FRAMINGHAM_LIPID: Readonly<Record<Sex, FraminghamLipidCoefficients>> = {
  male: {
    lnAge: 3.06117,
    lnTotalCholesterol: 1.1237,
    lnHdl: -0.93263,
    lnSbpUntreated: 1.93303,
    lnSbpTreated: 1.99881,
    smoker: 0.65451,
    diabetes: 0.57367,
    groupMean: 23.9802,
    baselineSurvival10: 0.88936,
  },
  female: {
    lnAge: 2.32888,
    lnTotalCholesterol: 1.20904,
    lnHdl: -0.70833,
    lnSbpUntreated: 2.76157,
    lnSbpTreated: 2.82263,
    smoker: 0.52873,
    diabetes: 0.69154,
    groupMean: 26.1931,
    baselineSurvival10: 0.95012,
  },
};

export interface FraminghamBmiCoefficients {
  lnAge: number;
  lnBmi: number;
  lnSbpUntreated: number;
  lnSbpTreated: number;
  smoker: number;
  diabetes: number;
  groupMean: number;
  baselineSurvival10: number;
}

/**
 * BMI ("non-laboratory") model: research §2.1.2 table 2 [IMPL, vcastro/CVrisk@data-raw/score_coef.R,
 * whose test vectors reproduce]. Not the transcription in 5_framingham.R (men's BMI 0.79299,
 * untreated SBP 1.85505), which research flags as slips.
 */
export const FRAMINGHAM_BMI: Readonly<Record<Sex, FraminghamBmiCoefficients>> = {
  male: {
    lnAge: 3.11296,
    lnBmi: 0.79277,
    lnSbpUntreated: 1.85508,
    lnSbpTreated: 1.92672,
    smoker: 0.70953,
    diabetes: 0.5316,
    groupMean: 23.9388,
    baselineSurvival10: 0.88431,
  },
  female: {
    lnAge: 2.72107,
    lnBmi: 0.51125,
    lnSbpUntreated: 2.81291,
    lnSbpTreated: 2.88267,
    smoker: 0.61868,
    diabetes: 0.77763,
    groupMean: 26.0145,
    baselineSurvival10: 0.94833,
  },
};

interface CommonInput {
  sex: Sex;
  ageYears: number;
  sbp: number;
  bpTreated: boolean;
  smoker: boolean;
  diabetes: boolean;
}

export interface FraminghamLipidInput extends CommonInput {
  totalCholesterolMgDl: number;
  hdlMgDl: number;
}

export interface FraminghamBmiInput extends CommonInput {
  bmi: number;
}

/** The Σβx terms, one per factor, so person and reference can be compared factor by factor. */
export interface FraminghamTerms {
  age: number;
  sbp: number;
  smoking: number;
  diabetes: number;
  /** Lipid model only. */
  totalCholesterol: number;
  hdl: number;
  /** BMI model only. */
  bmi: number;
}

export function framinghamLipidTerms(input: FraminghamLipidInput): FraminghamTerms {
  const c = FRAMINGHAM_LIPID[input.sex];
  return {
    age: c.lnAge * Math.log(input.ageYears),
    totalCholesterol: c.lnTotalCholesterol * Math.log(input.totalCholesterolMgDl),
    hdl: c.lnHdl * Math.log(input.hdlMgDl),
    sbp: (input.bpTreated ? c.lnSbpTreated : c.lnSbpUntreated) * Math.log(input.sbp),
    smoking: input.smoker ? c.smoker : 0,
    diabetes: input.diabetes ? c.diabetes : 0,
    bmi: 0,
  };
}

export function framinghamBmiTerms(input: FraminghamBmiInput): FraminghamTerms {
  const c = FRAMINGHAM_BMI[input.sex];
  return {
    age: c.lnAge * Math.log(input.ageYears),
    bmi: c.lnBmi * Math.log(input.bmi),
    sbp: (input.bpTreated ? c.lnSbpTreated : c.lnSbpUntreated) * Math.log(input.sbp),
    smoking: input.smoker ? c.smoker : 0,
    diabetes: input.diabetes ? c.diabetes : 0,
    totalCholesterol: 0,
    hdl: 0,
  };
}

export function sumTerms(t: FraminghamTerms): number {
  return t.age + t.totalCholesterol + t.hdl + t.bmi + t.sbp + t.smoking + t.diabetes;
}

/** 10-year risk from Σβx: 1 − S0(10)^exp(Σβx − group mean). */
export function framinghamRisk(sum: number, c: { groupMean: number; baselineSurvival10: number }): number {
  return 1 - c.baselineSurvival10 ** Math.exp(sum - c.groupMean);
}

/**
 * Heart age, research §2.1.3 [COMPUTED closed form]: the age at which the reference profile
 * (same SBP, reference lipids/BMI, non-smoker, no diabetes) has the person's Σβx, i.e.
 * exp((Σβx_person − Σβx_reference without its age term) / β_age).
 */
export function heartAge(
  personSum: number,
  referenceTerms: FraminghamTerms,
  lnAgeCoefficient: number,
): number {
  const referenceWithoutAge = sumTerms(referenceTerms) - referenceTerms.age;
  return Math.exp((personSum - referenceWithoutAge) / lnAgeCoefficient);
}
