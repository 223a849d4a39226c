import { describe, expect, it } from 'vitest';
import { checkPanel, FAMILY_CONDITIONS } from '../../src/domain/submission/index.js';
import { build, expectAccepted, expectRejectedAt, UNSET } from './submission-fixture.js';

/** partner-api.md "Family history". */

const F = 'subject.familyHistory';
const withParent = (parent: 'father' | 'mother', value: unknown) => build({ [`${F}.${parent}`]: value });

describe('family history: accepted', () => {
  const accepted: Array<[string, Record<string, unknown>]> = [
    ['alive with currentAge', { aliveStatus: 'alive', currentAge: 80 }],
    ['alive with currentAge 0', { aliveStatus: 'alive', currentAge: 0 }],
    ['alive with currentAge 120', { aliveStatus: 'alive', currentAge: 120 }],
    ['alive with deathAge -1', { aliveStatus: 'alive', currentAge: 80, deathAge: -1 }],
    ['deceased with deathAge', { aliveStatus: 'deceased', deathAge: 70 }],
    ['deceased with currentAge -1', { aliveStatus: 'deceased', deathAge: 70, currentAge: -1 }],
    ['unknown with no ages', { aliveStatus: 'unknown' }],
    ['unknown with -1 ages', { aliveStatus: 'unknown', deathAge: -1, currentAge: -1 }],
    ['no aliveStatus and no ages (read as unknown)', {}],
    ['no aliveStatus with -1 ages', { deathAge: -1, currentAge: -1 }],
    ['conditions only', { conditions: ['diabetes_mellitus'] }],
    ['an empty conditions list', { aliveStatus: 'unknown', conditions: [] }],
    ['none_known alone', { aliveStatus: 'unknown', conditions: ['none_known'] }],
    ['unknown alone', { aliveStatus: 'unknown', conditions: ['unknown'] }],
    ['none_known twice (merged)', { aliveStatus: 'unknown', conditions: ['none_known', 'none_known'] }],
    ['none_known with a condition', { aliveStatus: 'unknown', conditions: ['hypertension', 'none_known'] }],
    ['unknown with a condition', { aliveStatus: 'unknown', conditions: ['unknown', 'dementia'] }],
    ['none_known with unknown', { aliveStatus: 'unknown', conditions: ['none_known', 'unknown'] }],
    ['all eleven codes', { aliveStatus: 'unknown', conditions: [...FAMILY_CONDITIONS] }],
    [
      'duplicate conditions (merged)',
      { aliveStatus: 'unknown', conditions: ['dementia', 'dementia', 'hypertension'] },
    ],
  ];
  it.each(accepted)('accepts a father %s', (_name, father) => {
    expectAccepted(withParent('father', father));
  });
  it.each(accepted)('accepts a mother %s', (_name, mother) => {
    expectAccepted(withParent('mother', mother));
  });

  it.each(FAMILY_CONDITIONS.map((c) => [c]))('accepts the condition code %s', (code) => {
    expectAccepted(withParent('father', { aliveStatus: 'deceased', deathAge: 78, conditions: [code] }));
  });

  it('accepts a family history with no parents, or none at all', () => {
    expectAccepted(build({ [F]: {} }));
    expectAccepted(build({ [F]: UNSET }));
  });

  it('merges duplicate conditions in the normalised output', () => {
    const parsed = expectAccepted(
      withParent('mother', {
        aliveStatus: 'alive',
        currentAge: 81,
        conditions: ['dementia', 'hypertension', 'dementia'],
      }),
    );
    const panel = checkPanel(parsed);
    expect(panel.ok).toBe(true);
    if (panel.ok)
      expect(panel.value.subject.familyHistory?.mother?.conditions).toEqual(['dementia', 'hypertension']);
  });
});

describe('family history: rejected', () => {
  const rejected: Array<[string, Record<string, unknown>, string, RegExp]> = [
    [
      'an unknown aliveStatus',
      { aliveStatus: 'living' },
      'aliveStatus',
      /must be one of: alive, deceased, unknown/,
    ],
    [
      'deceased without deathAge',
      { aliveStatus: 'deceased' },
      'deathAge',
      /deathAge is required when aliveStatus is deceased/,
    ],
    ['deceased with deathAge -1', { aliveStatus: 'deceased', deathAge: -1 }, 'deathAge', /required/],
    [
      'deceased with a currentAge',
      { aliveStatus: 'deceased', deathAge: 70, currentAge: 75 },
      'currentAge',
      /omitted \(or -1\)/,
    ],
    [
      'alive without currentAge',
      { aliveStatus: 'alive' },
      'currentAge',
      /currentAge is required when aliveStatus is alive/,
    ],
    ['alive with currentAge -1', { aliveStatus: 'alive', currentAge: -1 }, 'currentAge', /required/],
    ['alive with a deathAge', { aliveStatus: 'alive', currentAge: 80, deathAge: 70 }, 'deathAge', /omitted/],
    ['unknown with a deathAge', { aliveStatus: 'unknown', deathAge: 70 }, 'deathAge', /omitted/],
    ['unknown with a currentAge', { aliveStatus: 'unknown', currentAge: 70 }, 'currentAge', /omitted/],
    ['no aliveStatus with a currentAge', { currentAge: 70 }, 'currentAge', /not sent/],
    ['no aliveStatus with a deathAge', { deathAge: 70 }, 'deathAge', /omitted/],
    ['deathAge 121', { aliveStatus: 'deceased', deathAge: 121 }, 'deathAge', /0 to 120, or -1/],
    ['a fractional currentAge', { aliveStatus: 'alive', currentAge: 80.5 }, 'currentAge', /whole number/],
    [
      'an unknown condition',
      { aliveStatus: 'unknown', conditions: ['flu'] },
      'conditions[0]',
      /must be one of/,
    ],
    [
      'a second unknown condition',
      { aliveStatus: 'unknown', conditions: ['dementia', 'asthma'] },
      'conditions[1]',
      /must be one of/,
    ],
    [
      'conditions as a string',
      { aliveStatus: 'unknown', conditions: 'dementia' },
      'conditions',
      /must be a list/,
    ],
    ['an unknown parent key', { aliveStatus: 'unknown', siblings: 2 }, 'siblings', /not a recognised field/],
  ];

  it.each(rejected)('rejects a father with %s at father.%s', (_name, father, field, message) => {
    const messages = expectRejectedAt(withParent('father', father), `${F}.father.${field}`);
    expect(messages.join(' | ')).toMatch(message);
  });
  it.each(rejected)('rejects a mother with %s at mother.%s', (_name, mother, field, message) => {
    const messages = expectRejectedAt(withParent('mother', mother), `${F}.mother.${field}`);
    expect(messages.join(' | ')).toMatch(message);
  });

  it('rejects a parent that is not an object and an unknown relative', () => {
    expectRejectedAt(withParent('father', 'deceased'), `${F}.father`);
    expectRejectedAt(build({ [`${F}.sibling`]: {} }), `${F}.sibling`);
  });
});
