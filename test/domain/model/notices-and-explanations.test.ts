import { describe, expect, it } from 'vitest';
import type { ModelResult } from '../../../src/domain/model/index.js';
import { documentsOnlyBody, outcome, PLAIN, score, scoreBody, UNSET } from './fixture.js';

/** Notices must read as plain language: no ids, sub-model names, enum values or stage codes. */
const CODE_LIKE =
  /\b[a-z]+_[a-z_]+\b|wellbeing\.|framingham|ukbdrs|plco|kotz|bortz|ckd-?pc|kdigo|\bG[1-5][ab]?\b|undefined|NaN|null/i;

function allNotices(r: ModelResult): string[] {
  return r.outcomes.flatMap((o) => o.notices);
}

const scenarios: Record<string, ModelResult> = {
  example: score(),
  documentsOnly: scoreBody(documentsOnlyBody()),
  child: score({ ...PLAIN, 'subject.demographics.ageYears': 12 }),
  old: score({ 'subject.demographics.ageYears': 90 }),
  notShared: score({ 'subject.history.smoking': { status: 'prefer_not_to_say' } }),
  conditions: score({
    'subject.history.conditions': {
      hasCardioCerebrovascular: true,
      hasDementia: true,
      hasKidneyDisease: true,
      hasLungCancer: true,
    },
  }),
  heavy: score({
    'subject.history.smoking': { status: 'current', currentFrequency: 'heavy', startAge: 15 },
    'subject.measurements': UNSET,
    'subject.demographics.educationYears': UNSET,
    'subject.history.overallHealth': 'unknown',
    'markers.CYSTATIN_C': 2.0,
    'markers.CHOL': 8,
  }),
};

describe('notices (model-v1 §4)', () => {
  it.each(Object.keys(scenarios))('%s: plain sentences, no codes, no duplicates', (name) => {
    const r = scenarios[name]!;
    for (const o of r.outcomes) {
      expect(new Set(o.notices).size).toBe(o.notices.length);
      for (const n of o.notices) {
        expect(n).not.toMatch(CODE_LIKE);
        expect(n).toMatch(/^[A-Z"].*[.]$/);
        expect(n.length).toBeLessThan(300);
      }
    }
  });
  it('each assumption that moved a number has one notice', () => {
    const r = scenarios.heavy!;
    const resp = outcome(r, 'wellbeing.respiratory').notices.join(' ');
    expect(resp).toMatch(/25 a day was assumed from "heavy" smoking/);
    expect(resp).toMatch(/average of 13.5 years was assumed/);
    expect(resp).toMatch(/body mass index of 25 was assumed/);
    expect(resp).toMatch(/worked out for age 55/);
    expect(outcome(r, 'wellbeing.general').notices).toContain(
      'Overall health was not rated, so "good" was assumed.',
    );
    expect(outcome(r, 'wellbeing.cognitive').notices.join(' ')).toMatch(
      /not collected; they were counted as absent/,
    );
    expect(outcome(r, 'wellbeing.renal').notices.join(' ')).toMatch(/below 60/);
  });
  it('the cardiovascular lipid model does not use BMI, so a missing BMI has no notice there', () => {
    const o = outcome(scenarios.heavy!, 'wellbeing.cardiovascular');
    expect(o.subModelId).toBe('framingham-2008-lipid');
    expect(o.notices.join(' ')).not.toMatch(/body mass index/);
  });
  it('a former smoker without a start age gets no lung-cancer figure, and is told only what was missing', () => {
    const o = outcome(scenarios.example!, 'wellbeing.respiratory');
    expect(o.extras).toEqual([]);
    const lung = o.notices.filter((n) => n.includes('lung cancer figure'));
    expect(lung).toEqual([
      'The 6-year lung cancer figure could not be worked out because the age smoking started was not given.',
    ]);
    // The example sends cigarettes a day: the notice must not ask for them.
    expect(lung.join(' ')).not.toMatch(/cigarettes/);
  });
  it('the general outcome says it is not jointly validated', () => {
    expect(outcome(scenarios.example!, 'wellbeing.general').notices.join(' ')).toMatch(
      /not been validated together/,
    );
  });
  it('the dementia outcome looks 10 years ahead and says where its 10-year figure comes from', () => {
    const o = outcome(scenarios.example!, 'wellbeing.cognitive');
    expect(o.horizonYears).toBe(10);
    const notices = o.notices.join(' ');
    expect(notices).toMatch(
      /10-year figure is read from the dementia risk score's published model, not published by its authors/,
    );
    expect(notices).not.toMatch(/14 years ahead|covers 14 years/);
    expect(o.subModelLabel).toMatch(
      /10-year risk; the 10-year baseline is read from the authors' published model fit, not published by them, and its calibration is not reported/,
    );
    expect(o.extras.map((e) => e.label)).toEqual([
      '10-year dementia risk',
      '10-year risk of the reference person',
    ]);
  });
  it('an implausible height and weight fall back to BMI 25 with a notice', () => {
    const r = scoreBody(documentsOnlyBody({ 'subject.measurements': { weightKg: 80, heightCm: 0 } }));
    expect(r.derived.find((d) => d.key === 'bmi')).toMatchObject({ value: 25, provenance: 'assumed' });
    expect(outcome(r, 'wellbeing.cardiovascular').notices.join(' ')).toMatch(
      /do not produce a plausible body mass index/,
    );
  });
  it('never contains internal codes across all scenarios', () => {
    for (const r of Object.values(scenarios)) for (const n of allNotices(r)) expect(n).not.toMatch(CODE_LIKE);
  });
});

describe('contributions and explanations (model-v1 §5)', () => {
  it('contributions are person − reference log hazards, largest absolute first', () => {
    const o = outcome(score({ ...PLAIN, 'markers.HDL': 0.8 }), 'wellbeing.cardiovascular');
    const abs = o.contributions.map((c) => Math.abs(c.logHazardDifference));
    expect(abs).toEqual([...abs].sort((a, b) => b - a));
    const hdl = o.contributions.find((c) => c.factor === 'hdl')!;
    expect(hdl.logHazardDifference).toBeCloseTo(-0.70833 * Math.log(0.8 / 1.2), 5);
    expect(hdl.direction).toBe('unfavourable');
  });
  it('contributions add up to the log of the risk ratio for relative models', () => {
    for (const id of ['wellbeing.renal', 'wellbeing.general', 'wellbeing.respiratory'] as const) {
      const o = outcome(score(), id);
      const sum = o.contributions.reduce((s, c) => s + c.logHazardDifference, 0);
      expect(sum).toBeCloseTo(Math.log(o.risk! / o.referenceRisk!), 4);
    }
  });
  it('names the largest unfavourable factor and says it accounts for most of the difference', () => {
    const o = outcome(score({ ...PLAIN, 'markers.HDL': 0.8 }), 'wellbeing.cardiovascular');
    expect(o.explanation[0]).toBe(
      'Your HDL cholesterol (0.8 mmol/L) is below the target of 1.2 mmol/L and accounts for most of the difference from the reference.',
    );
  });
  it('names at most two unfavourable and one favourable factor', () => {
    const o = outcome(
      score({
        ...PLAIN,
        'markers.HDL': 0.8,
        'markers.CHOL': 3.5,
        'markers.HBA1C_MMOL_MOL': 55,
        'subject.history.smoking': { status: 'current', currentCigsPerDay: 10 },
      }),
      'wellbeing.cardiovascular',
    );
    expect(o.explanation).toHaveLength(3);
    expect(o.explanation.filter((s) => s.includes('difference from the reference'))).toHaveLength(2);
    expect(o.explanation[2]).toMatch(/total cholesterol .* below the reference .*works in your favour\.$/);
  });
  it('says so when nothing moves the estimate', () => {
    const o = outcome(score(PLAIN), 'wellbeing.respiratory');
    expect(o.explanation).toEqual([
      'Nothing in your answers or results moves this estimate away from the reference.',
    ]);
  });
  it('equivalent ages: heart age, dementia-risk age and biological age (age + BAA)', () => {
    const r = score();
    expect(outcome(r, 'wellbeing.cardiovascular').equivalentAge?.label).toBe('Heart age');
    expect(outcome(r, 'wellbeing.cognitive').equivalentAge?.label).toBe('Dementia-risk age');
    const general = outcome(r, 'wellbeing.general');
    const baa = general.extras.find((e) => e.label === 'Biological age acceleration')!.value;
    expect(general.equivalentAge?.years).toBeCloseTo(54 + baa, 1);
  });
});

describe('derived inputs (model-v1 §1)', () => {
  it('record provenance: measured/reported, computed or assumed', () => {
    const r = scenarios.heavy!;
    const by = (key: string) => r.derived.find((d) => d.key === key);
    expect(by('ageYears')?.provenance).toBe('reported');
    expect(by('bmi')?.provenance).toBe('assumed');
    expect(by('educationYears')?.provenance).toBe('assumed');
    expect(by('egfrCys')?.provenance).toBe('computed');
    expect(by('cigarettesPerDay')).toMatchObject({ value: 25, provenance: 'assumed' });
    expect(by('packYears')?.provenance).toBe('assumed');
  });
  it('diabetes from HbA1c ≥ 48 is computed and says so', () => {
    const d = score({ 'markers.HBA1C_MMOL_MOL': 48 }).derived.find((x) => x.key === 'diabetes');
    expect(d).toMatchObject({ value: true, provenance: 'computed', note: 'HbA1c in the diabetes range' });
  });
});
