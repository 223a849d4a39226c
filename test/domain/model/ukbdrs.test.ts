import { describe, expect, it } from 'vitest';
import {
  dementiaRiskAge,
  type UkbdrsInput,
  ukbdrsLinearPredictor,
  ukbdrsRisk10,
  ukbdrsRisk14,
  ukbdrsTerms,
} from '../../../src/domain/model/submodels/ukbdrs.js';

const calculatorCase: UkbdrsInput = {
  sex: 'female',
  ageYears: 60,
  educationYears: 14,
  parentalDementia: false,
  diabetes: true,
  strokeTia: false,
  depression: true,
  hypertension: true,
};

describe('UKBDRS (research §2.2.2)', () => {
  it('§5 vector 3: the calculator case with full-precision coefficients → LP 1.238143, 2.8611 %', () => {
    const lp = ukbdrsLinearPredictor(ukbdrsTerms(calculatorCase));
    expect(lp).toBeCloseTo(1.238143, 6);
    expect(ukbdrsRisk14(lp)).toBeCloseTo(0.028611, 6);
  });
  it('§5 vector 3: the calculator rounded-coefficient LP 1.23748 → 2.8592 % (same baseline and transform)', () => {
    // The calculator's rounded betas: age 0.178, education −0.041, diabetes 0.536, depression 0.556, hypertension 0.159.
    expect(0.178 * (60 - 59.97) - 0.041 * (14 - 13.54) + 0.536 + 0.556 + 0.159).toBeCloseTo(1.23748, 10);
    expect(ukbdrsRisk14(1.23748)).toBeCloseTo(0.028592, 6);
  });
  it('[COMPUTED] male 65, parental history, 10 years of education → 4.240 %', () => {
    const lp = ukbdrsLinearPredictor(
      ukbdrsTerms({
        sex: 'male',
        ageYears: 65,
        educationYears: 10,
        parentalDementia: true,
        diabetes: false,
        strokeTia: false,
      }),
    );
    expect(ukbdrsRisk14(lp)).toBeCloseTo(0.0424, 5);
  });
  it('[COMPUTED] the worked example (§3.2): reference 0.827 %, dementia-risk age 67.0', () => {
    const lp = ukbdrsLinearPredictor(ukbdrsTerms(calculatorCase));
    const refLp = ukbdrsLinearPredictor(
      ukbdrsTerms({ ...calculatorCase, diabetes: false, depression: false, hypertension: false }),
    );
    expect(ukbdrsRisk14(refLp)).toBeCloseTo(0.00827, 5);
    expect(dementiaRiskAge(60, lp, refLp)).toBeCloseTo(67.0, 1);
  });
  it('the baseline is the 14-year one: LP 0 → 0.83805 %', () => {
    expect(ukbdrsRisk14(0)).toBeCloseTo(0.0083805, 7);
  });
});

/** Four significant digits, as model-v1.1 asks its test values to be pinned. */
const sig4 = (x: number) => Number(x.toPrecision(4));

describe('UKBDRS over 10 years (model-v1.1 §1)', () => {
  it.each([
    {
      person: 'male, 65, parent with dementia, 10 years of education, no diabetes, no stroke',
      input: { sex: 'male', ageYears: 65, educationYears: 10, parentalDementia: true, diabetes: false },
      lp: 1.638612,
      risk10: 0.019134,
      risk14: 0.0424,
    },
    {
      person: 'female, 60, 14 years of education, diabetes, no parental history, no stroke',
      input: { sex: 'female', ageYears: 60, educationYears: 14, parentalDementia: false, diabetes: true },
      lp: 0.522944,
      risk10: 0.006311,
      risk14: 0.014097,
    },
  ] as const)('$person: LP $lp, 10-year $risk10, 14-year $risk14', ({ input, lp, risk10, risk14 }) => {
    const got = ukbdrsLinearPredictor(ukbdrsTerms({ ...input, strokeTia: false }));
    expect(sig4(got)).toBe(sig4(lp));
    expect(sig4(ukbdrsRisk10(got))).toBe(sig4(risk10));
    expect(sig4(ukbdrsRisk14(got))).toBe(sig4(risk14));
  });
  it('the 10-year baseline: LP 0 → 0.37457 %, the 14-year one unchanged', () => {
    expect(ukbdrsRisk10(0)).toBeCloseTo(0.0037457, 7);
    expect(ukbdrsRisk14(0)).toBeCloseTo(0.0083805, 7);
  });
});
