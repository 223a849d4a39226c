import { describe, expect, it } from 'vitest';
import { cholesterolMgDl } from '../../../src/domain/model/derived/lipids.js';
import {
  FRAMINGHAM_BMI,
  FRAMINGHAM_LIPID,
  framinghamBmiTerms,
  framinghamLipidTerms,
  framinghamRisk,
  heartAge,
  sumTerms,
} from '../../../src/domain/model/submodels/framingham.js';
import { imputedSbp } from '../../../src/domain/model/submodels/sbp-imputation.js';

const untreated = { bpTreated: false };

function lipidRisk(
  sex: 'male' | 'female',
  age: number,
  tc: number,
  hdl: number,
  sbp: number,
  smoker = false,
  diabetes = false,
) {
  const terms = framinghamLipidTerms({
    sex,
    ageYears: age,
    totalCholesterolMgDl: tc,
    hdlMgDl: hdl,
    sbp,
    smoker,
    diabetes,
    ...untreated,
  });
  return { sum: sumTerms(terms), risk: framinghamRisk(sumTerms(terms), FRAMINGHAM_LIPID[sex]), terms };
}

function bmiRisk(
  sex: 'male' | 'female',
  age: number,
  bmi: number,
  sbp: number,
  smoker = false,
  diabetes = false,
) {
  const terms = framinghamBmiTerms({ sex, ageYears: age, bmi, sbp, smoker, diabetes, ...untreated });
  return { sum: sumTerms(terms), risk: framinghamRisk(sumTerms(terms), FRAMINGHAM_BMI[sex]) };
}

describe('Framingham 2008 (research §2.1.2)', () => {
  it('§5 vector 1, lipid: male 55, TC 213, HDL 50, SBP 140 untreated → Σβx 24.19549, 0.1353403 [IMPL, CVrisk]', () => {
    const r = lipidRisk('male', 55, 213, 50, 140);
    expect(r.sum).toBeCloseTo(24.19549, 5);
    expect(r.risk).toBeCloseTo(0.1353403, 7);
  });
  it('§5 vector 2, BMI: male 55, BMI 30, SBP 140 → Σβx 24.33818, 0.1674834 [IMPL, CVrisk]', () => {
    const r = bmiRisk('male', 55, 30, 140);
    expect(r.sum).toBeCloseTo(24.33818, 5);
    expect(r.risk).toBeCloseTo(0.1674834, 7);
  });
  it('[COMPUTED] female 60, TC 6.0 / HDL 1.5 mmol/L, SBP 130.8, lipid model → 8.171 %', () => {
    expect(lipidRisk('female', 60, cholesterolMgDl(6), cholesterolMgDl(1.5), 130.8).risk).toBeCloseTo(
      0.08171,
      5,
    );
  });
  it('[COMPUTED] female 60, BMI 31, SBP 130.8, diabetic, BMI model → 18.825 %', () => {
    expect(bmiRisk('female', 60, 31, 130.8, false, true).risk).toBeCloseTo(0.18825, 5);
  });
  it.each([
    [110, 0.1106],
    [120, 0.1287],
    [125, 0.138],
    [132.8, 0.1531],
    [140, 0.1675],
  ])('[COMPUTED] BMI-model sensitivity to SBP %d → %d', (sbp, risk) => {
    expect(bmiRisk('male', 55, 30, sbp).risk).toBeCloseTo(risk, 4);
  });
  it('uses the treated SBP coefficient only when treated', () => {
    const t = framinghamLipidTerms({
      sex: 'male',
      ageYears: 55,
      totalCholesterolMgDl: 213,
      hdlMgDl: 50,
      sbp: 140,
      bpTreated: true,
      smoker: false,
      diabetes: false,
    });
    expect(t.sbp).toBeCloseTo(1.99881 * Math.log(140), 12);
  });
});

describe('heart age and the worked example (research §2.1.3, §3.2)', () => {
  // research's example uses its own reference (TC 170, HDL 50 mg/dL); model-v1 replaced that
  // reference, so this pins the sub-model arithmetic, not the product's reference.
  const person = lipidRisk('male', 55, cholesterolMgDl(5.5), cholesterolMgDl(1.3), 132.8, true);
  const reference = lipidRisk('male', 55, 170, 50, 132.8);
  it('male 55, TC 5.5, HDL 1.3, smoker, SBP 132.8 → 22.20 %; reference 9.69 %', () => {
    expect(person.risk).toBeCloseTo(0.222, 4);
    expect(reference.risk).toBeCloseTo(0.0969, 4);
  });
  it('heart age 73.8', () => {
    expect(heartAge(person.sum, reference.terms, FRAMINGHAM_LIPID.male.lnAge)).toBeCloseTo(73.8, 1);
  });
  it('heart age equals the age when the person matches the reference', () => {
    expect(heartAge(reference.sum, reference.terms, FRAMINGHAM_LIPID.male.lnAge)).toBeCloseTo(55, 10);
  });
  it('[COMPUTED] female 60 example: 8.171 % against a reference of 6.295 %', () => {
    expect(lipidRisk('female', 60, 170, 50, 130.8).risk).toBeCloseTo(0.06295, 5);
  });
});

describe('SBP imputation, age/sex terms (research §2.1.4 [COMPUTED] table)', () => {
  it.each([
    [40, 128.9, 120.6],
    [50, 131.5, 125.7],
    [55, 132.8, 128.3],
    [60, 133.9, 130.8],
    [70, 135.7, 135.0],
  ])('age %d → men %d, women %d', (age, men, women) => {
    expect(imputedSbp('male', age)).toBeCloseTo(men, 0);
    expect(Math.abs(imputedSbp('male', age) - men)).toBeLessThan(0.051);
    expect(Math.abs(imputedSbp('female', age) - women)).toBeLessThan(0.051);
  });
});
