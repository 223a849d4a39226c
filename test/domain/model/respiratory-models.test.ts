import { describe, expect, it } from 'vitest';
import { formerSmokerFraction, quitDurationHr } from '../../../src/domain/model/submodels/general-hazards.js';
import { KOTZ_EVER_SMOKER_HR, kotzSmokingHazard } from '../../../src/domain/model/submodels/kotz.js';
import {
  PLCOM2012,
  type PlcoInput,
  plcoEducationLevel,
  plcoLogit,
  plcoRisk6,
} from '../../../src/domain/model/submodels/plco.js';

const tenHaaf: PlcoInput = {
  ageYears: 70,
  educationLevel: 5,
  bmi: 28,
  copd: false,
  personalCancerHistory: false,
  familyLungCancer: true,
  ethnicGroup: 'reference',
  current: false,
  cigarettesPerDay: 15,
  yearsSmoked: 30,
  yearsSinceQuitting: 20,
};

describe('PLCOm2012 (research §2.4.3)', () => {
  it('§5 vector 4: ten Haaf example → logit −4.126398, p6 0.015885', () => {
    expect(plcoLogit(tenHaaf)).toBeCloseTo(-4.126398, 6);
    expect(plcoRisk6(tenHaaf)).toBeCloseTo(0.015885, 6);
  });
  it('[COMPUTED] the NEJM Figure 1 reference person at 20/day → 0.892 %', () => {
    const p = plcoRisk6({
      ...tenHaaf,
      ageYears: 62,
      educationLevel: 4,
      bmi: 27,
      familyLungCancer: false,
      cigarettesPerDay: 20,
      yearsSmoked: 27,
      yearsSinceQuitting: 10,
    });
    expect(p).toBeCloseTo(0.00892, 5);
  });
  it('[COMPUTED] current smoker, 60, education 2, BMI 25, 20/day for 40 y → 2.488 % (quit term (0 − 10) × β)', () => {
    const p = plcoRisk6({
      ...tenHaaf,
      ageYears: 60,
      educationLevel: 2,
      bmi: 25,
      familyLungCancer: false,
      current: true,
      cigarettesPerDay: 20,
      yearsSmoked: 40,
      yearsSinceQuitting: 0,
    });
    expect(p).toBeCloseTo(0.02488, 5);
  });
  it('Hispanic is −0.7434744 (NEJM), not ten Haaf’s −0.734744', () => {
    expect(PLCOM2012.race.hispanic).toBe(-0.7434744);
    expect(plcoLogit({ ...tenHaaf, ethnicGroup: 'hispanic' }) - plcoLogit(tenHaaf)).toBeCloseTo(
      -0.7434744,
      10,
    );
  });
  it.each([
    [8, 1],
    [11, 1],
    [12, 2],
    [13, 3],
    [13.54, 3],
    [14, 4],
    [15, 4],
    [16, 5],
    [17, 6],
    [25, 6],
  ])('education %d years → level %d (research mapping)', (years, level) => {
    expect(plcoEducationLevel(years)).toBe(level);
  });
});

describe('Kotz COPD hazard and former-smoker scaling (research §2.4.2, model-v1 §7)', () => {
  it('ever- vs never-smoker HR: 9.61 women, 6.72 men', () => {
    expect(KOTZ_EVER_SMOKER_HR).toEqual({ female: 9.61, male: 6.72 });
    expect(kotzSmokingHazard('female', 'current')).toBe(9.61);
    expect(kotzSmokingHazard('male', 'never')).toBe(1);
  });
  it.each([
    [0, 2.18, 0.674],
    [1, 2.18, 0.674],
    [2, 1.96, 0.549],
    [4, 1.96, 0.549],
    [5, 1.69, 0.394],
    [9, 1.69, 0.394],
    [10, 1.18, 0.103],
    [30, 1.18, 0.103],
  ])('%d years since quitting → HR %d, f ≈ %d (exact quotient)', (years, hr, f) => {
    expect(quitDurationHr(years)).toBe(hr);
    expect(formerSmokerFraction(years)).toBe((hr - 1) / 1.75);
    expect(formerSmokerFraction(years)).toBeCloseTo(f, 3);
  });
  it('an unknown stop age takes 0.549', () => {
    expect(formerSmokerFraction(null)).toBe(0.96 / 1.75);
  });
  it('former smoker: 1 + (HR − 1) × f', () => {
    expect(kotzSmokingHazard('male', { formerFraction: 0.5 })).toBeCloseTo(1 + 5.72 * 0.5, 12);
  });
});
