import type { Sex } from '../derived/sex.js';

/**
 * Systolic blood pressure imputed from age and sex (research §2.1.4 option 1 [IMPL,
 * Exeter-Diabetes/EHRBiomarkr@data-raw/q_missing_predictors.yaml, QRISK2 missing-predictor
 * regressions]). model-v1 §7 keeps the age/sex terms only (c1…c5): the value for a white,
 * non-smoking, untreated person without diabetes or cardiovascular disease. With a = age/10:
 * SBP = (a³ − c1)·c2 + (a³·ln a − c3)·c4 + c5.
 */
const SBP_AGE_SEX: Readonly<Record<Sex, readonly [number, number, number, number, number]>> = {
  male: [
    140.47117614746094, 0.1872822916339649, 231.54342651367188, -0.078664725736900393, 132.03037642156471,
  ],
  female: [
    154.10174560546875, 0.33733572190280608, 258.768310546875, -0.13784142063892721, 127.59848763784193,
  ],
};

export function imputedSbp(sex: Sex, ageYears: number): number {
  const [c1, c2, c3, c4, c5] = SBP_AGE_SEX[sex];
  const a = ageYears / 10;
  const a3 = a * a * a;
  return (a3 - c1) * c2 + (a3 * Math.log(a) - c3) * c4 + c5;
}

/** model-v1 §3(a): the imputed SBP is tried 15 mmHg lower and higher for the placement check. */
export const SBP_STRADDLE_MMHG = 15;
