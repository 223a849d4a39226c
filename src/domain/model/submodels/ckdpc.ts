import type { Sex } from '../derived/sex.js';

/**
 * CKD Prognosis Consortium incident-CKD equations (Nelson RG, Grams ME, Ballew SH et al., JAMA
 * 2019;322:2104-14): incident eGFR < 60 within 5 years for people starting at eGFR ≥ 60, with
 * separate models with and without diabetes. Used as a relative hazard only: the no-diabetes
 * intercept and baseline are [UNVERIFIED] (research §2.3.1), so no absolute risk is computed.
 *
 * Transforms [IMPL, ckdpc_core.py and Exeter-Diabetes/EHRBiomarkr@R/ckdpc_ckd_risk_scores.R]:
 * age/5 − 11; eGFR spline (15 − min(eGFR, 90)/5) and −max(0, eGFR − 90)/5; BMI/5 − 5.4;
 * HbA1c % − 7 (diabetes model). eGFR here is eGFRcys, a substitution for the paper's
 * creatinine eGFR (research §5), flagged in the model card.
 */

export interface CkdpcCoefficients {
  agePer5: number;
  female: number;
  black: number;
  /** Per 5 mL/min/1.73 m² lower, below 90. */
  egfrBelow90: number;
  /** Per 5 mL/min/1.73 m² lower, above 90. */
  egfrAbove90: number;
  cvdHistory: number;
  everSmoker: number;
  hypertension: number;
  bmiPer5: number;
  /** Per unit of the ACR term; the ACR term is 0 when ACR is missing (the model's own patch). */
  acr: number;
  /** Diabetes model only (per 1 % HbA1c above 7 %). */
  hba1cPercent: number;
}

/**
 * No diabetes: research §2.3.1, Table 2 sub-hazard ratios [VERIFIED, PMC6865298 Table 2],
 * entered as ln(SHR). Only the two-decimal SHRs are published, so ln of the published value is
 * the full available precision.
 */
export const CKDPC_NO_DIABETES: CkdpcCoefficients = {
  agePer5: Math.log(1.29),
  female: Math.log(1.2),
  black: Math.log(1.2),
  egfrBelow90: Math.log(1.58),
  egfrAbove90: Math.log(1.37),
  cvdHistory: Math.log(1.22),
  everSmoker: Math.log(1.13),
  hypertension: Math.log(1.43),
  bmiPer5: Math.log(1.07),
  acr: Math.log(1.42),
  hba1cPercent: 0,
};

/**
 * With diabetes: research §2.3.1 full-precision coefficients [IMPL, Exeter-Diabetes/EHRBiomarkr@
 * data-raw/ckdpc_egfr60_risk_constants.yaml; they exponentiate to Table 2]. Signs are the
 * effective ones: the R code subtracts ever_smoker_cons (0.00084), so ever-smoking enters as
 * −0.00084 (SHR 1.00 in Table 2). Medication terms (insulin 0.1078296, no medication −0.150944,
 * and their HbA1c interactions 0.023959 / 0.0398424) are not collected: model-v1 §7 puts
 * everyone in the model's reference category (oral medication), where all four are 0.
 */
export const CKDPC_DIABETES: CkdpcCoefficients = {
  agePer5: 0.1351572,
  female: 0.1381975,
  black: 0.0920208,
  egfrBelow90: 0.3546697,
  egfrAbove90: 0.1525133,
  cvdHistory: 0.1870637,
  everSmoker: -0.00084,
  hypertension: 0.3653268,
  bmiPer5: 0.050306,
  acr: 0.37379,
  hba1cPercent: 0.0619679,
};

export interface CkdpcInput {
  sex: Sex;
  ageYears: number;
  black: boolean;
  egfr: number;
  cvdHistory: boolean;
  everSmoker: boolean;
  /** Not collected: always false in the service (research §5). */
  hypertension: boolean;
  bmi: number;
  /** Diabetes model only. */
  hba1cPercent: number;
}

export interface CkdpcTerms {
  age: number;
  sex: number;
  black: number;
  egfr: number;
  cvdHistory: number;
  smoking: number;
  hypertension: number;
  bmi: number;
  hba1c: number;
}

export function ckdpcTerms(c: CkdpcCoefficients, input: CkdpcInput): CkdpcTerms {
  return {
    age: c.agePer5 * (input.ageYears / 5 - 11),
    sex: input.sex === 'female' ? c.female : 0,
    black: input.black ? c.black : 0,
    egfr:
      c.egfrBelow90 * (15 - Math.min(input.egfr, 90) / 5) -
      (c.egfrAbove90 * Math.max(0, input.egfr - 90)) / 5,
    cvdHistory: input.cvdHistory ? c.cvdHistory : 0,
    smoking: input.everSmoker ? c.everSmoker : 0,
    hypertension: input.hypertension ? c.hypertension : 0,
    bmi: c.bmiPer5 * (input.bmi / 5 - 5.4),
    // ACR is not collected: its term is 0 in person and reference alike (research §2.3.1).
    hba1c: c.hba1cPercent * (input.hba1cPercent - 7),
  };
}

export function ckdpcLinearPredictor(t: CkdpcTerms): number {
  return t.age + t.sex + t.black + t.egfr + t.cvdHistory + t.smoking + t.hypertension + t.bmi + t.hba1c;
}
