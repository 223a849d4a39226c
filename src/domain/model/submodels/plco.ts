import type { EthnicGroup } from '../derived/ethnicity.js';
import type { AgeRange } from './age-range.js';

/**
 * PLCOm2012, 6-year lung-cancer probability for ever-smokers (Tammemägi MC et al., NEJM
 * 2013;368:728-36). Logistic: p6 = e^logit / (1 + e^logit).
 */

/** PLCO/NLST ages; outside them the model is evaluated at the nearest bound (model-v1 §4). */
export const PLCO_AGE_RANGE: AgeRange = { min: 55, max: 74 };

/** Screening threshold ≥ 1.51 % over 6 years (Tammemägi, PLOS Med 2014) [VERIFIED]. */
export const PLCO_HIGH_RISK = 0.0151;

/**
 * research §2.4.3 [VERIFIED, NEJM Table 2 and supplement Table S3]. Hispanic is −0.7434744 as
 * published; ten Haaf's public R code has the typo −0.734744.
 */
export const PLCOM2012 = {
  constant: -4.532506,
  age: 0.0778868,
  ageCentre: 62,
  education: -0.0812744,
  educationCentre: 4,
  bmi: -0.0274194,
  bmiCentre: 27,
  copd: 0.3553063,
  personalCancer: 0.4589971,
  familyLungCancer: 0.587185,
  currentSmoker: 0.2597431,
  intensity: -1.822606,
  intensityCentre: 0.4021541613,
  duration: 0.0317321,
  durationCentre: 27,
  quitYears: -0.0308572,
  quitYearsCentre: 10,
  race: {
    reference: 0,
    black: 0.3944778,
    hispanic: -0.7434744,
    asian: -0.466585,
    pacific_islander: 1.027152,
  } as Readonly<Record<EthnicGroup, number>>,
} as const;

/** PLCO education levels: 1 < high school … 4 some college … 6 postgraduate. */
export type PlcoEducationLevel = 1 | 2 | 3 | 4 | 5 | 6;

/**
 * Years of education → PLCO level, research §2.4.3 [synthesis, the research's own mapping]:
 * <12 → 1, 12 → 2, 13 → 3, 14–15 → 4, 16 → 5, ≥17 → 6. Fractional years (the 13.54 default)
 * count by their whole part.
 */
export function plcoEducationLevel(years: number): PlcoEducationLevel {
  const y = Math.floor(years);
  if (y < 12) return 1;
  if (y === 12) return 2;
  if (y === 13) return 3;
  if (y <= 15) return 4;
  if (y === 16) return 5;
  return 6;
}

export interface PlcoInput {
  ageYears: number;
  educationLevel: PlcoEducationLevel;
  bmi: number;
  copd: boolean;
  personalCancerHistory: boolean;
  familyLungCancer: boolean;
  ethnicGroup: EthnicGroup;
  current: boolean;
  /** Must be > 0: the intensity term uses its reciprocal. */
  cigarettesPerDay: number;
  yearsSmoked: number;
  /** 0 for current smokers (model-v1 §7: the term is then (0 − 10) × β). */
  yearsSinceQuitting: number;
}

export function plcoLogit(input: PlcoInput): number {
  const b = PLCOM2012;
  return (
    b.constant +
    b.age * (input.ageYears - b.ageCentre) +
    b.education * (input.educationLevel - b.educationCentre) +
    b.bmi * (input.bmi - b.bmiCentre) +
    (input.copd ? b.copd : 0) +
    (input.personalCancerHistory ? b.personalCancer : 0) +
    (input.familyLungCancer ? b.familyLungCancer : 0) +
    (input.current ? b.currentSmoker : 0) +
    b.intensity * (1 / (input.cigarettesPerDay / 10) - b.intensityCentre) +
    b.duration * (input.yearsSmoked - b.durationCentre) +
    b.quitYears * ((input.current ? 0 : input.yearsSinceQuitting) - b.quitYearsCentre) +
    b.race[input.ethnicGroup]
  );
}

export function plcoRisk6(input: PlcoInput): number {
  const e = Math.exp(plcoLogit(input));
  return e / (1 + e);
}
