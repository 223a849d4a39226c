import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OUTCOMES,
  normaliseOutcomeName,
  OUTCOME_IDS,
  type OutcomeId,
  REQUESTED_OUTPUTS,
} from '../../src/domain/submission/index.js';

describe('outcome ids', () => {
  it('lists the five public ids and the four-area default from decisions.md', () => {
    expect(OUTCOME_IDS).toEqual([
      'wellbeing.cardiovascular',
      'wellbeing.renal',
      'wellbeing.cognitive',
      'wellbeing.respiratory',
      'wellbeing.general',
    ]);
    expect(DEFAULT_OUTCOMES).toEqual([
      'wellbeing.cardiovascular',
      'wellbeing.cognitive',
      'wellbeing.renal',
      'wellbeing.respiratory',
    ]);
    expect(REQUESTED_OUTPUTS).toEqual(['inference_score_v1', 'score', 'json', 'pdf', 'html']);
  });
});

/** Every area name the three forms accept, with the public id it stands for. */
const AREAS = new Map<string, OutcomeId>([
  ['cardiovascular', 'wellbeing.cardiovascular'],
  ['renal', 'wellbeing.renal'],
  ['kidney', 'wellbeing.renal'],
  ['cognitive', 'wellbeing.cognitive'],
  ['respiratory', 'wellbeing.respiratory'],
  ['general', 'wellbeing.general'],
]);

describe('normaliseOutcomeName', () => {
  const areas = [...AREAS];
  const forms = [
    (a: string) => `wellbeing.${a}`,
    (a: string) => `${a}.wellbeing`,
    (a: string) => `${a}_wellbeing_10y`,
  ];
  const cases = areas.flatMap(([area, id]) => forms.map((f) => [f(area), id] as const));

  it.each(cases)('normalises %s to %s', (name, id) => {
    expect(normaliseOutcomeName(name)).toBe(id);
  });

  it.each(OUTCOME_IDS.map((id) => [id]))('keeps the public id %s', (id) => {
    expect(normaliseOutcomeName(id)).toBe(id);
  });

  it('trims and ignores case', () => {
    expect(normaliseOutcomeName(' Wellbeing.Kidney ')).toBe('wellbeing.renal');
    expect(normaliseOutcomeName('CARDIOVASCULAR_WELLBEING_10Y')).toBe('wellbeing.cardiovascular');
  });

  it.each([
    'wellbeing.happiness',
    'wellbeing',
    'cardiovascular',
    'wellbeing.cardiovascular.extra',
    'cardiovascular_wellbeing_5y',
    'wellbeing_cardiovascular',
    '',
  ])('rejects %j', (name) => {
    expect(normaliseOutcomeName(name)).toBeNull();
  });
});

describe('normaliseOutcomeName and the three name forms', () => {
  const FORMS = [/^wellbeing\.([a-z]+)$/, /^([a-z]+)\.wellbeing$/, /^([a-z]+)_wellbeing_10y$/];
  /** The forms matched one after another, as every name was read before the lookup of known names. */
  function byForms(raw: string): OutcomeId | null {
    const name = raw.trim().toLowerCase();
    for (const form of FORMS) {
      const area = form.exec(name)?.[1];
      if (area !== undefined) return AREAS.get(area) ?? null;
    }
    return null;
  }

  it('reads every name as matching the forms one by one does', () => {
    const part = fc.constantFrom(
      'wellbeing',
      'WellBeing',
      '.',
      '_',
      '_10y',
      '10Y',
      ...AREAS.keys(),
      'CARDIOVASCULAR',
      '\u212aidney', // Kelvin sign: lower-cases to an ASCII k
      ' ',
      '\n',
      'x',
    );
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), (parts) => {
        const name = parts.join('');
        expect(normaliseOutcomeName(name)).toBe(byForms(name));
      }),
      { seed: 31, numRuns: 3000 },
    );
  });
});
