import { describe, expect, it } from 'vitest';
import { ageInYears, referenceDate } from '../../../src/domain/model/derived/age.js';
import { bodyMassIndex, isPlausibleBmi, whoBmiCategory } from '../../../src/domain/model/derived/bmi.js';
import { deRitisRatio } from '../../../src/domain/model/derived/de-ritis.js';
import { egfrCystatinC, kdigoStage } from '../../../src/domain/model/derived/egfr.js';
import { ethnicGroup } from '../../../src/domain/model/derived/ethnicity.js';
import { deriveFamily } from '../../../src/domain/model/derived/family.js';
import { glycaemicCategory, hba1cPercent } from '../../../src/domain/model/derived/hba1c.js';
import {
  cholesterolMgDl,
  nonHdlCholesterol,
  totalToHdlRatio,
} from '../../../src/domain/model/derived/lipids.js';
import { deriveSmoking, packYears } from '../../../src/domain/model/derived/smoking.js';
import { FAMILY_CONDITIONS } from '../../../src/domain/submission/family-history-rules.js';

describe('age (model-v1 §7)', () => {
  const at = new Date('2026-01-01T00:30:00Z');
  it('prefers ageYears when both are sent', () => {
    expect(ageInYears({ ageYears: 50, birthYear: 1975 }, at)).toEqual({ value: 50, provenance: 'reported' });
  });
  it('takes the UTC calendar year of the reference date minus birthYear', () => {
    expect(ageInYears({ birthYear: 1976 }, at)).toEqual({ value: 50, provenance: 'computed' });
    // 00:30 UTC on 1 January is still 31 December in New York: the year is UTC's.
    expect(ageInYears({ birthYear: 1976 }, new Date('2025-12-31T23:30:00-05:00'))).toMatchObject({
      value: 50,
    });
  });
  it('uses sourceTimestamp when present, else now', () => {
    const now = new Date('2030-06-01T00:00:00Z');
    expect(referenceDate('2026-11-20T09:30:00Z', now).toISOString()).toBe('2026-11-20T09:30:00.000Z');
    expect(referenceDate(undefined, now)).toBe(now);
  });
});

describe('eGFRcys, CKD-EPI 2012 (research §1.1 [COMPUTED] table)', () => {
  it.each([
    [0.8, 50, 'male', 108.85],
    [1.0, 60, 'female', 72.47],
    [0.7, 40, 'male', 121.11],
    [1.5, 70, 'female', 40.63],
    [1.2, 68, 'male', 59.11],
  ] as const)('Scys %d, age %d, %s → %d', (scys, age, sex, expected) => {
    expect(egfrCystatinC(scys, age, sex)).toBeCloseTo(expected, 2);
  });
  it('uses the NKF age base 0.996, not 0.9962', () => {
    const ratio = egfrCystatinC(0.8, 51, 'male') / egfrCystatinC(0.8, 50, 'male');
    expect(ratio).toBeCloseTo(0.996, 12);
  });
  it('stages by KDIGO (≥90, 60–89, 45–59, 30–44, 15–29, <15)', () => {
    expect([95, 90, 89.9, 60, 59.9, 45, 44.9, 30, 29.9, 15, 14.9].map(kdigoStage)).toEqual([
      'G1',
      'G1',
      'G2',
      'G2',
      'G3a',
      'G3a',
      'G3b',
      'G3b',
      'G4',
      'G4',
      'G5',
    ]);
  });
});

describe('HbA1c (research §1.2)', () => {
  it.each([
    [31, 4.99],
    [36, 5.45],
    [39, 5.72],
    [42, 5.99],
    [48, 6.54],
    [53, 7.0],
  ])('%d mmol/mol → %d %% ([COMPUTED], master equation)', (ifcc, pct) => {
    expect(hba1cPercent(ifcc)).toBeCloseTo(pct, 2);
  });
  it('48 mmol/mol → 6.543 % (§5 vector 7), with 0.09148 not the 0.09418 typo', () => {
    expect(hba1cPercent(48)).toBeCloseTo(6.543, 3);
  });
  it('categorises <42, 42–47, ≥48', () => {
    expect([41.9, 42, 47.9, 48].map(glycaemicCategory)).toEqual([
      'normal',
      'prediabetes',
      'prediabetes',
      'diabetes',
    ]);
  });
});

describe('BMI (research §1.3)', () => {
  it('80 kg, 175 cm → 26.12, overweight', () => {
    const bmi = bodyMassIndex(80, 175);
    expect(bmi).toBeCloseTo(26.12, 2);
    expect(whoBmiCategory(bmi)).toBe('overweight');
  });
  it('uses the WHO cut-points', () => {
    expect([18.4, 18.5, 24.9, 25, 29.9, 30, 35, 40].map(whoBmiCategory)).toEqual([
      'underweight',
      'healthy',
      'healthy',
      'overweight',
      'overweight',
      'obesity_1',
      'obesity_2',
      'obesity_3',
    ]);
  });
  it('rejects impossible values (a zero height gives infinity)', () => {
    expect(isPlausibleBmi(bodyMassIndex(70, 0))).toBe(false);
    expect(isPlausibleBmi(bodyMassIndex(300, 20))).toBe(false);
    expect(isPlausibleBmi(bodyMassIndex(70, 170))).toBe(true);
  });
});

describe('lipids and De Ritis (research §1.5, §1.6)', () => {
  it('derives non-HDL, TC/HDL and mg/dL with 38.67', () => {
    expect(nonHdlCholesterol(5.5, 1.3)).toBeCloseTo(4.2, 12);
    expect(totalToHdlRatio(6, 1.5)).toBe(4);
    expect(cholesterolMgDl(6)).toBeCloseTo(232.02, 10);
    expect(cholesterolMgDl(1.5)).toBeCloseTo(58.005, 10);
  });
  it('De Ritis = AST/ALT', () => {
    expect(deRitisRatio(40, 20)).toBe(2);
  });
});

describe('smoking (model-v1 §1, §7)', () => {
  it('pack-years: 15/day for 40 years → 30 (research §1.4)', () => {
    expect(packYears(15, 40)).toBe(30);
  });
  it('absent smoking reads as never, assumed', () => {
    expect(deriveSmoking(undefined, 50)).toMatchObject({
      status: 'never',
      statusProvenance: 'assumed',
      ever: false,
    });
  });
  it('prefer_not_to_say is computed as never and flagged', () => {
    expect(deriveSmoking({ status: 'prefer_not_to_say' }, 50)).toMatchObject({
      ever: false,
      notShared: true,
    });
  });
  it('current heavy smoker with a count: duration from startAge to now, quit years 0', () => {
    const s = deriveSmoking(
      { status: 'current', currentFrequency: 'heavy', currentCigsPerDay: 20, startAge: 20 },
      60,
    );
    expect(s).toMatchObject({
      ever: true,
      current: true,
      cigarettesPerDay: { value: 20, provenance: 'reported' },
      intensityWord: null,
      yearsSmoked: 40,
      yearsSinceQuitting: 0,
      packYears: 40,
    });
  });
  it('a count of 0 is no count: the frequency word gives the intensity, flagged as assumed', () => {
    const s = deriveSmoking({ status: 'current', currentFrequency: 'moderate', currentCigsPerDay: 0 }, 40);
    expect(s.cigarettesPerDay).toEqual({ value: 15, provenance: 'assumed' });
    expect(s.intensityWord).toBe('moderate');
  });
  it.each([
    ['light', 5],
    ['moderate', 15],
    ['heavy', 25],
  ] as const)('former %s smoker without a count → %d a day', (word, perDay) => {
    const s = deriveSmoking({ status: 'former', pastFrequency: word, stopAge: 40 }, 50);
    expect(s.cigarettesPerDay).toEqual({ value: perDay, provenance: 'assumed' });
    expect(s.yearsSinceQuitting).toBe(10);
  });
  it('no intensity from none or unknown', () => {
    expect(deriveSmoking({ status: 'current', currentFrequency: 'none' }, 40).cigarettesPerDay).toBeNull();
    expect(
      deriveSmoking({ status: 'former', pastFrequency: 'unknown', stopAge: 30 }, 40).cigarettesPerDay,
    ).toBeNull();
  });
  it('former smoker: duration from startAge to stopAge; pack-years need both', () => {
    const s = deriveSmoking(
      { status: 'former', pastFrequency: 'heavy', pastCigsPerDay: 30, startAge: 18, stopAge: 48 },
      70,
    );
    expect(s).toMatchObject({ yearsSmoked: 30, yearsSinceQuitting: 22, packYears: 45 });
    expect(deriveSmoking({ status: 'former', pastCigsPerDay: 10, stopAge: 41 }, 54)).toMatchObject({
      yearsSmoked: null,
      packYears: null,
      yearsSinceQuitting: 13,
    });
  });
});

describe('family (model-v1 §1)', () => {
  it('flags either parent, dementia or Alzheimer, and the age each reached', () => {
    const f = deriveFamily({
      father: { aliveStatus: 'deceased', deathAge: 78, conditions: ['alzheimer_disease', 'lung_cancer'] },
      mother: { aliveStatus: 'alive', currentAge: 81, conditions: ['kidney_disease'] },
    });
    expect(f).toEqual({
      dementia: true,
      lungCancer: true,
      cardiovascular: false,
      cerebrovascular: false,
      diabetes: false,
      kidney: true,
      fatherAgeReached: 78,
      motherAgeReached: 81,
    });
  });
  it('nothing known → no flags, no ages', () => {
    expect(deriveFamily(undefined)).toMatchObject({
      dementia: false,
      fatherAgeReached: null,
      motherAgeReached: null,
    });
    expect(
      deriveFamily({ father: { aliveStatus: 'unknown', conditions: ['unknown'] } }).fatherAgeReached,
    ).toBeNull();
  });
});

describe('family history read from any set of codes', () => {
  const none = {
    dementia: false,
    lungCancer: false,
    cardiovascular: false,
    cerebrovascular: false,
    diabetes: false,
    kidney: false,
  };
  it('counts a listed condition beside none_known or unknown', () => {
    expect(
      deriveFamily({
        father: { aliveStatus: 'unknown', conditions: ['none_known', 'dementia'] },
        mother: { aliveStatus: 'unknown', conditions: ['lung_cancer', 'unknown'] },
      }),
    ).toMatchObject({ ...none, dementia: true, lungCancer: true });
  });
  it('reads all eleven codes as every condition', () => {
    expect(
      deriveFamily({ father: { aliveStatus: 'unknown', conditions: [...FAMILY_CONDITIONS] } }),
    ).toMatchObject({
      dementia: true,
      lungCancer: true,
      cardiovascular: true,
      cerebrovascular: true,
      diabetes: true,
      kidney: true,
    });
  });
  it('reads none_known, unknown or both alone as no condition', () => {
    for (const conditions of [['none_known'], ['unknown'], ['none_known', 'unknown']] as const) {
      expect(deriveFamily({ mother: { aliveStatus: 'unknown', conditions: [...conditions] } })).toMatchObject(
        none,
      );
    }
  });
});

describe('ethnicity text (model-v1 §7)', () => {
  it.each([
    ['Black British', 'black'],
    ['african_american', 'black'],
    ['Hispanic', 'hispanic'],
    ['latino', 'hispanic'],
    ['British Indian', 'asian'],
    ['asian_other', 'asian'],
    ['Chinese', 'asian'],
    ['pakistani', 'asian'],
    ['Bangladeshi', 'asian'],
    ['Filipino', 'asian'],
    ['japanese', 'asian'],
    ['Korean', 'asian'],
    ['Vietnamese', 'asian'],
    ['American Indian', 'reference'],
    ['american_indian_or_alaska_native', 'reference'],
    ['Native Hawaiian', 'pacific_islander'],
    ['pacific islander', 'pacific_islander'],
    ['white_british', 'reference'],
    ['prefer not to say', 'reference'],
  ] as const)('%s → %s', (text, group) => {
    expect(ethnicGroup(text)).toBe(group);
  });
  it('absent → reference', () => {
    expect(ethnicGroup(undefined)).toBe('reference');
  });
});
