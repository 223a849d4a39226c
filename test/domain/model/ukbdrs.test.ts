import { describe, expect, it } from 'vitest';
import {
  dementiaRiskAge,
  type UkbdrsInput,
  ukbdrsLinearPredictor,
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
