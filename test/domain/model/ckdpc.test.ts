import { describe, expect, it } from 'vitest';
import { egfrCystatinC } from '../../../src/domain/model/derived/egfr.js';
import {
  CKDPC_DIABETES,
  CKDPC_NO_DIABETES,
  type CkdpcInput,
  ckdpcLinearPredictor,
  ckdpcTerms,
} from '../../../src/domain/model/submodels/ckdpc.js';

function hazardRatio(person: CkdpcInput, reference: CkdpcInput, c = CKDPC_NO_DIABETES): number {
  return Math.exp(
    ckdpcLinearPredictor(ckdpcTerms(c, person)) - ckdpcLinearPredictor(ckdpcTerms(c, reference)),
  );
}

const female60 = {
  sex: 'female',
  ageYears: 60,
  black: false,
  cvdHistory: false,
  hypertension: false,
  hba1cPercent: 7,
} as const;
// research §2.3.1 used its own reference (BMI 22.5); model-v1 uses 25 in the product.
const researchReference: CkdpcInput = { ...female60, egfr: 90, everSmoker: false, bmi: 22.5 };

describe('CKD-PC relative use (research §2.3.1 [COMPUTED])', () => {
  it('female 60, Scys 1.0 (eGFR 72.47), ever-smoker, BMI 30 → HR 6.22', () => {
    const egfr = egfrCystatinC(1.0, 60, 'female');
    expect(hazardRatio({ ...female60, egfr, everSmoker: true, bmi: 30 }, researchReference)).toBeCloseTo(
      6.22,
      2,
    );
  });
  it('female 60, Scys 0.75 (eGFR 100.65), never-smoker, BMI 24 → HR 0.52', () => {
    const egfr = egfrCystatinC(0.75, 60, 'female');
    expect(egfr).toBeCloseTo(100.65, 2);
    expect(hazardRatio({ ...female60, egfr, everSmoker: false, bmi: 24 }, researchReference)).toBeCloseTo(
      0.52,
      2,
    );
  });
  it('no-diabetes coefficients are ln of the Table 2 SHRs [VERIFIED]', () => {
    expect(CKDPC_NO_DIABETES.egfrBelow90).toBeCloseTo(0.4574, 4);
    expect(CKDPC_NO_DIABETES.egfrAbove90).toBeCloseTo(0.3148, 4);
    expect(CKDPC_NO_DIABETES.everSmoker).toBeCloseTo(0.1222, 4);
    expect(CKDPC_NO_DIABETES.bmiPer5).toBeCloseTo(0.0677, 4);
    expect(CKDPC_NO_DIABETES.cvdHistory).toBeCloseTo(0.1989, 4);
  });
  it('diabetes coefficients exponentiate to Table 2 (research: they confirm the transforms)', () => {
    const table2: Array<[keyof typeof CKDPC_DIABETES, number]> = [
      ['agePer5', 1.14],
      ['female', 1.15],
      ['black', 1.1],
      ['egfrBelow90', 1.43],
      ['egfrAbove90', 1.16],
      ['cvdHistory', 1.21],
      ['everSmoker', 1.0],
      ['hypertension', 1.44],
      ['bmiPer5', 1.05],
      ['acr', 1.45],
      ['hba1cPercent', 1.06],
    ];
    for (const [key, shr] of table2) expect(Math.exp(CKDPC_DIABETES[key])).toBeCloseTo(shr, 2);
  });
  it('the ever-smoker term of the diabetes model is −0.00084 (the R code subtracts +0.00084)', () => {
    expect(CKDPC_DIABETES.everSmoker).toBe(-0.00084);
  });
  it('eGFR spline: flat contributions meet at 90 and continue above it', () => {
    const at = (egfr: number) => ckdpcTerms(CKDPC_NO_DIABETES, { ...researchReference, egfr }).egfr;
    expect(at(90)).toBeCloseTo(CKDPC_NO_DIABETES.egfrBelow90 * -3, 12);
    expect(at(95) - at(90)).toBeCloseTo(-CKDPC_NO_DIABETES.egfrAbove90, 12);
    expect(at(85) - at(90)).toBeCloseTo(CKDPC_NO_DIABETES.egfrBelow90, 12);
  });
});
