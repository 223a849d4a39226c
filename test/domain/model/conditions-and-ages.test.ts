import { describe, expect, it } from 'vitest';
import type { OutcomeId } from '../../../src/domain/submission/index.js';
import { ALL_OUTCOMES, documentsOnlyBody, outcome, PLAIN, score, scoreBody, UNSET } from './fixture.js';

const conditions = (flags: Record<string, boolean>) => ({ ...PLAIN, 'subject.history.conditions': flags });

describe('existing condition in the area (model-v1 §3, §7)', () => {
  it.each([
    ['hasCardioCerebrovascular', 'wellbeing.cardiovascular'],
    ['hasDementia', 'wellbeing.cognitive'],
    ['hasKidneyDisease', 'wellbeing.renal'],
    ['hasLungCancer', 'wellbeing.respiratory'],
  ] as const)('%s → %s completed, below the reference, tier low, score ≤ 0.25, with a notice', (flag, id) => {
    const o = outcome(score(conditions({ [flag]: true })), id);
    expect(o.status).toBe('completed');
    expect(o.placement).toBe('below_reference');
    expect(o.tier).toBe('low');
    expect(o.score).toBeLessThanOrEqual(0.25);
    expect(o.notices[0]).toMatch(/^An existing condition was reported .*not a forecast/);
  });
  it('the score is min(model score, 0.25): 0.25 when the model scores higher', () => {
    expect(outcome(score(conditions({ hasDementia: true })), 'wellbeing.cognitive').score).toBe(0.25);
  });
  it('…and the model score when it is lower (a current smoker with lung cancer)', () => {
    const o = outcome(
      score({
        ...conditions({ hasLungCancer: true }),
        'subject.history.smoking': { status: 'current', currentCigsPerDay: 20 },
      }),
      'wellbeing.respiratory',
    );
    expect(o.score).toBe(Math.round((1 / (1 + 9.61)) * 1000) / 1000);
    expect(o.extras.some((e) => e.label === '6-year lung cancer risk')).toBe(false);
  });
  it('kidney disease: the CKD-PC score at eGFR ≥ 60, the stage score below (both capped at 0.25)', () => {
    const ckdpc = outcome(
      score({ ...conditions({ hasKidneyDisease: true }), 'markers.CYSTATIN_C': 0.6 }),
      'wellbeing.renal',
    );
    expect(ckdpc.subModelId).toBe('ckdpc-2019-no-diabetes');
    expect(ckdpc.score).toBe(0.25);
    const g4 = outcome(
      score({ ...conditions({ hasKidneyDisease: true }), 'markers.CYSTATIN_C': 2.5 }),
      'wellbeing.renal',
    );
    expect(g4).toMatchObject({
      subModelId: 'kdigo-2012-stage',
      score: 0.1,
      tier: 'low',
      placement: 'below_reference',
    });
  });
  it('beats rule (b): prefer_not_to_say stays below_reference', () => {
    const o = outcome(
      score({
        ...conditions({ hasCardioCerebrovascular: true }),
        'subject.history.smoking': { status: 'prefer_not_to_say' },
      }),
      'wellbeing.cardiovascular',
    );
    expect(o.placement).toBe('below_reference');
    expect(o.notices).toContain(
      'Smoking status was not shared, so this estimate assumes you have never smoked.',
    );
  });
  it('beats rule (c): outside the fitted age range stays below_reference', () => {
    const o = outcome(
      score({ ...conditions({ hasDementia: true }), 'subject.demographics.ageYears': 80 }),
      'wellbeing.cognitive',
    );
    expect(o.placement).toBe('below_reference');
    expect(o.notices.join(' ')).toMatch(/outside the age range this estimate was built for/);
  });
  it('without markers the existing-condition rule wins: renal completed at 0.25', () => {
    const o = outcome(
      scoreBody(documentsOnlyBody(conditions({ hasKidneyDisease: true }))),
      'wellbeing.renal',
    );
    expect(o).toMatchObject({ status: 'completed', score: 0.25, placement: 'below_reference', tier: 'low' });
  });
  it('a condition in one area leaves the others as forecasts (except as a model input)', () => {
    const r = score(conditions({ hasDementia: true }));
    expect(outcome(r, 'wellbeing.cardiovascular').notices.join(' ')).not.toMatch(/existing condition/);
  });
  it('heart or circulation disease counts as stroke for the dementia score, with a notice', () => {
    const o = outcome(score(conditions({ hasCardioCerebrovascular: true })), 'wellbeing.cognitive');
    expect(o.notices.join(' ')).toMatch(/counted as a past stroke or mini-stroke/);
    expect(o.contributions.find((c) => c.factor === 'strokeTia')?.direction).toBe('unfavourable');
  });
});

describe('documents-only submissions (model-v1 §4)', () => {
  const r = scoreBody(documentsOnlyBody(PLAIN));
  it('cardiovascular uses the BMI model, partial, with notices', () => {
    const o = outcome(r, 'wellbeing.cardiovascular');
    expect(o).toMatchObject({ status: 'partial', subModelId: 'framingham-2008-bmi' });
    expect(o.notices).toContain(
      'No blood results were provided, so this estimate uses your questionnaire answers only.',
    );
    expect(o.notices.join(' ')).toMatch(/uses body mass index/);
  });
  it.each(['wellbeing.cognitive', 'wellbeing.respiratory', 'wellbeing.general'] as const)(
    '%s is partial',
    (id) => {
      const o = outcome(r, id);
      expect(o.status).toBe('partial');
      expect(o.score).toBeGreaterThan(0);
      expect(o.notices).toContain(
        'No blood results were provided, so this estimate uses your questionnaire answers only.',
      );
    },
  );
  it('general uses the questionnaire hazard ratios alone (never smoked, good health → 0.5)', () => {
    expect(outcome(r, 'wellbeing.general')).toMatchObject({
      subModelId: 'questionnaire-hazards',
      score: 0.5,
    });
  });
  it('renal fails: score 0, indeterminate, tier unknown, with a notice', () => {
    const o = outcome(r, 'wellbeing.renal');
    expect(o).toMatchObject({
      status: 'failed',
      score: 0,
      placement: 'indeterminate',
      tier: 'unknown',
      risk: null,
    });
    expect(o.notices[0]).toBe('Kidney health cannot be estimated without a cystatin C blood result.');
  });
  it('derived inputs hold no blood-marker values', () => {
    expect(r.derived.map((d) => d.key)).not.toContain('egfrCys');
  });
});

describe('ages (model-v1 §4, §7)', () => {
  const at = (age: number) => score({ ...PLAIN, 'subject.demographics.ageYears': age });

  it('under 18: every outcome failed, score 0, indeterminate, unknown, with the adults notice', () => {
    const r = at(17);
    expect(r.outcomes).toHaveLength(5);
    for (const o of r.outcomes) {
      expect(o).toMatchObject({ status: 'failed', score: 0, placement: 'indeterminate', tier: 'unknown' });
      expect(o.notices).toEqual([
        'This service is designed for adults aged 18 and over, so this area was not estimated.',
      ]);
      expect(o.contributions).toEqual([]);
    }
  });
  it('under 18 beats an existing condition', () => {
    const o = outcome(
      score({ ...conditions({ hasDementia: true }), 'subject.demographics.ageYears': 12 }),
      'wellbeing.cognitive',
    );
    expect(o.status).toBe('failed');
  });
  it('18 is an adult', () => {
    expect(at(18).outcomes.every((o) => o.status !== 'failed')).toBe(true);
  });

  const ranges: Array<[OutcomeId, number, number]> = [
    ['wellbeing.cardiovascular', 30, 74],
    ['wellbeing.cognitive', 50, 73],
    ['wellbeing.respiratory', 35, 74],
  ];
  // Clearly-better-than-reference profiles so that placement is decided by the age rule alone.
  const better = { 'markers.CHOL': 4.0, 'markers.HDL': 2.4, 'subject.demographics.educationYears': 20 };
  describe.each(ranges)('%s fitted %d–%d', (id, min, max) => {
    const s = (age: number) =>
      outcome(score({ ...PLAIN, ...better, 'subject.demographics.ageYears': age }), id);
    it('at both bounds: placed, no age notice', () => {
      for (const age of [min, max]) {
        const o = s(age);
        expect(o.placement).not.toBe('indeterminate');
        expect(o.notices.join(' ')).not.toMatch(/outside the age range/);
      }
    });
    it('outside: computed at the nearest bound, indeterminate, with the notice', () => {
      for (const [age, bound] of [
        [min - 1, min],
        [max + 1, max],
      ]) {
        const o = s(age!);
        const atBound = s(bound!);
        expect(o.placement).toBe('indeterminate');
        expect(o.score).toBe(atBound.score);
        expect(o.risk).toBe(atBound.risk);
        expect(o.notices.join(' ')).toMatch(
          new RegExp(
            `outside the age range this estimate was built for \\(${min} to ${max} years\\), so it was worked out for age ${bound}`,
          ),
        );
      }
    });
  });
  it('renal and general have no fitted range: placed at 18 and at 90', () => {
    for (const age of [18, 90]) {
      const r = score({ ...PLAIN, 'subject.demographics.ageYears': age, 'markers.CYSTATIN_C': 0.6 });
      expect(outcome(r, 'wellbeing.renal').placement).not.toBe('indeterminate');
      expect(outcome(r, 'wellbeing.general').placement).not.toBe('indeterminate');
    }
  });
  it('age from birthYear is the UTC calendar year of sourceTimestamp minus birthYear', () => {
    const r = score({
      'subject.demographics.ageYears': UNSET,
      'subject.demographics.birthYear': 1960,
      'sourceMetadata.sourceTimestamp': '2026-01-01T00:00:00Z',
    });
    expect(r.ageYears).toBe(66);
  });
  it('equivalent ages: none when the person is outside the fitted range', () => {
    expect(outcome(at(80), 'wellbeing.cardiovascular').equivalentAge).toBeNull();
    expect(outcome(at(40), 'wellbeing.cognitive').equivalentAge).toBeNull();
    expect(outcome(at(60), 'wellbeing.cardiovascular').equivalentAge?.label).toBe('Heart age');
    expect(outcome(at(60), 'wellbeing.cognitive').equivalentAge?.label).toBe('Dementia-risk age');
  });
  it('equivalent ages beyond the fitted range are shown at the bound and labelled so', () => {
    const o = outcome(
      score({
        ...PLAIN,
        'subject.demographics.ageYears': 72,
        'subject.demographics.sexAtBirth': 'male',
        'markers.HBA1C_MMOL_MOL': 60,
        'subject.history.smoking': { status: 'current', currentCigsPerDay: 20 },
      }),
      'wellbeing.cardiovascular',
    );
    expect(o.equivalentAge).toEqual({
      label: 'Heart age (above 74, the oldest age the model covers)',
      years: 74,
    });
  });
});

describe('outcome order and selection', () => {
  it('follows requestedOutcomes after normalisation, duplicates dropped', () => {
    const r = score({
      'options.requestedOutcomes': [
        'general.wellbeing',
        'wellbeing.kidney',
        'renal.wellbeing',
        'cardiovascular_wellbeing_10y',
      ],
    });
    expect(r.outcomes.map((o) => o.outcomeId)).toEqual([
      'wellbeing.general',
      'wellbeing.renal',
      'wellbeing.cardiovascular',
    ]);
  });
  it('defaults to the four areas when none are requested', () => {
    const r = score({ 'options.requestedOutcomes': UNSET });
    expect(r.outcomes.map((o) => o.outcomeId)).toEqual(
      ALL_OUTCOMES.filter((id) => id !== 'wellbeing.general'),
    );
  });
});
