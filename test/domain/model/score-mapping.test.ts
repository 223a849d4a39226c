import { describe, expect, it } from 'vitest';
import {
  capTier,
  placementForScore,
  relativeScore,
  round3,
  straddlesReference,
  tierForScore,
} from '../../../src/domain/model/scoring/score.js';
import { outcome, PLAIN, score, UNSET } from './fixture.js';

describe('score = R_ref / (R_ref + R) (model-v1 §3)', () => {
  it.each([0.001, 0.05, 1, 7.3])('is 0.5 at the reference (R_ref = %d)', (r) => {
    expect(relativeScore(r, r)).toBe(0.5);
  });
  it.each([0.001, 0.05, 1, 7.3])('is 1/3 at twice the reference (R_ref = %d), 0.333 rounded', (r) => {
    expect(relativeScore(r, 2 * r)).toBeCloseTo(1 / 3, 12);
    expect(round3(relativeScore(r, 2 * r))).toBe(0.333);
  });
  it('is 0.2 at four times the reference and above 0.5 below it', () => {
    expect(relativeScore(1, 4)).toBeCloseTo(0.2, 12);
    expect(relativeScore(1, 0.5)).toBeCloseTo(2 / 3, 12);
  });
  it('rounds to 3 decimals', () => {
    expect(round3(0.12345)).toBe(0.123);
    expect(round3(0.4996)).toBe(0.5);
  });
});

describe('tiers and placement on the unrounded score (model-v1 §3)', () => {
  it('high ≥ 0.5, medium 0.333–<0.5, low below', () => {
    expect(tierForScore(0.5)).toBe('high');
    expect(tierForScore(0.4999)).toBe('medium');
    expect(tierForScore(1 / 3)).toBe('medium');
    expect(tierForScore(0.333)).toBe('medium');
    expect(tierForScore(0.3329)).toBe('low');
  });
  it('0.4996 rounds to 0.5 but stays below the reference and medium', () => {
    expect(placementForScore(0.4996)).toBe('below_reference');
    expect(tierForScore(0.4996)).toBe('medium');
    expect(placementForScore(0.5)).toBe('above_reference');
  });
  it('caps lower a tier and never raise it', () => {
    expect(capTier('high', 'medium')).toBe('medium');
    expect(capTier('low', 'medium')).toBe('low');
    expect(capTier('high', 'low')).toBe('low');
    expect(capTier('high', null)).toBe('high');
  });
  it('straddle means lowest < 0.5 ≤ highest', () => {
    expect(straddlesReference(0.45, 0.5)).toBe(true);
    expect(straddlesReference(0.5, 0.6)).toBe(false);
    expect(straddlesReference(0.3, 0.49)).toBe(false);
  });
});

describe('the reference person scores 0.5 through the whole model', () => {
  // Female 54, total cholesterol 5.0, HDL 1.2, never smoked, HbA1c 37, no family history,
  // education not given (13.54), BMI exactly 25, good self-rated health.
  const reference = {
    ...PLAIN,
    'subject.demographics.educationYears': UNSET,
    'markers.CHOL': 5.0,
    'markers.HDL': 1.2,
    'subject.measurements': { weightKg: 100, heightCm: 200 },
  };
  const result = score(reference);
  it('cardiovascular: 0.5, and indeterminate because the imputed SBP ±15 straddles it', () => {
    const o = outcome(result, 'wellbeing.cardiovascular');
    expect(o.score).toBe(0.5);
    expect(o.risk).toBe(o.referenceRisk);
    expect(o.placement).toBe('indeterminate');
    expect(o.tier).toBe('high');
  });
  it('cognitive: 0.5, above the reference', () => {
    const o = outcome(
      score({ ...reference, 'subject.demographics.educationYears': 13 }),
      'wellbeing.cognitive',
    );
    expect(o.score).toBeLessThan(0.5);
    const atRef = outcome(result, 'wellbeing.cognitive');
    expect(atRef.score).toBe(0.5);
    expect(atRef.placement).toBe('above_reference');
  });
  it('respiratory: a never-smoker is the reference (0.5)', () => {
    expect(outcome(result, 'wellbeing.respiratory')).toMatchObject({
      score: 0.5,
      placement: 'above_reference',
    });
  });
  it('every reported score is the rounded R_ref / (R_ref + R) of the reported risks', () => {
    for (const o of score().outcomes) {
      if (o.risk === null || o.referenceRisk === null) continue;
      expect(o.score).toBeCloseTo(o.referenceRisk / (o.referenceRisk + o.risk), 3);
    }
  });
});
