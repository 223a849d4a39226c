import { describe, expect, it } from 'vitest';
import { build, expectAccepted, expectRejectedAt, UNSET } from './submission-fixture.js';

/** partner-api.md "Smoking rules"; the example subject is 54 years old. */

const S = 'subject.history.smoking';
const withSmoking = (smoking: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  build({ [S]: smoking, ...extra });

describe('smoking: accepted branches', () => {
  const accepted: Array<[string, Record<string, unknown>]> = [
    ['never with status only', { status: 'never' }],
    ['prefer_not_to_say with status only', { status: 'prefer_not_to_say' }],
    ['never with -1 sentinels (counted as absent)', { status: 'never', stopAge: -1, currentCigsPerDay: -1 }],
    ['former with stopAge only', { status: 'former', stopAge: 40 }],
    [
      'former with pastFrequency and pastCigsPerDay',
      { status: 'former', pastFrequency: 'moderate', pastCigsPerDay: 10, stopAge: 41 },
    ],
    [
      'former heavy with startAge',
      { status: 'former', pastFrequency: 'heavy', pastCigsPerDay: 20, stopAge: 41, startAge: 18 },
    ],
    ['former heavy without startAge', { status: 'former', pastFrequency: 'heavy', stopAge: 41 }],
    [
      'former with pastCigsPerDay -1',
      { status: 'former', pastFrequency: 'light', pastCigsPerDay: -1, stopAge: 40 },
    ],
    [
      'former with startAge -1 outside the heavy branch',
      { status: 'former', pastFrequency: 'light', stopAge: 40, startAge: -1 },
    ],
    [
      'former with startAge equal to stopAge',
      { status: 'former', pastFrequency: 'heavy', stopAge: 30, startAge: 30 },
    ],
    ['former with stopAge equal to the subject age', { status: 'former', stopAge: 54 }],
    ['current with currentCigsPerDay only', { status: 'current', currentCigsPerDay: 12 }],
    ['current with currentCigsPerDay 0', { status: 'current', currentCigsPerDay: 0 }],
    ['current with currentFrequency light only', { status: 'current', currentFrequency: 'light' }],
    ['current with currentFrequency none', { status: 'current', currentFrequency: 'none' }],
    [
      'current with currentFrequency unknown and cigarettes',
      { status: 'current', currentFrequency: 'unknown', currentCigsPerDay: 5 },
    ],
    [
      'current heavy with startAge',
      { status: 'current', currentFrequency: 'heavy', currentCigsPerDay: 25, startAge: 17 },
    ],
    [
      'current heavy with startAge at the subject age',
      { status: 'current', currentFrequency: 'heavy', startAge: 54 },
    ],
    ['current with stopAge -1', { status: 'current', currentCigsPerDay: 10, stopAge: -1 }],
    ['current with pastCigsPerDay -1', { status: 'current', currentCigsPerDay: 10, pastCigsPerDay: -1 }],
  ];
  it.each(accepted)('accepts %s', (_name, smoking) => {
    expectAccepted(withSmoking(smoking));
  });

  it.each(['none', 'light', 'moderate', 'heavy', 'unknown'])(
    'accepts pastFrequency %s for a former smoker',
    (f) => {
      expectAccepted(withSmoking({ status: 'former', pastFrequency: f, stopAge: 40 }));
    },
  );

  it.each(['none', 'light', 'moderate', 'heavy'])(
    'accepts currentFrequency %s alone for a current smoker',
    (f) => {
      expectAccepted(withSmoking({ status: 'current', currentFrequency: f }));
    },
  );

  it('accepts no smoking object at all', () => {
    expectAccepted(build({ [S]: UNSET }));
  });

  it('checks startAge and stopAge against an age implied by birthYear', () => {
    const birthYearOnly = { 'subject.demographics.ageYears': UNSET, 'subject.demographics.birthYear': 1972 };
    expectAccepted(withSmoking({ status: 'former', stopAge: 54 }, birthYearOnly));
    expectRejectedAt(withSmoking({ status: 'former', stopAge: 55 }, birthYearOnly), `${S}.stopAge`);
  });
});

describe('smoking: rejected branches', () => {
  const rejected: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['smoking without status', { pastFrequency: 'light' }, 'status', /status is required/],
    [
      'an unknown status',
      { status: 'sometimes' },
      'status',
      /must be one of: never, former, current, prefer_not_to_say/,
    ],
    [
      'an unknown pastFrequency',
      { status: 'former', stopAge: 40, pastFrequency: 'daily' },
      'pastFrequency',
      /must be one of/,
    ],
    [
      'an unknown currentFrequency',
      { status: 'current', currentFrequency: 'often' },
      'currentFrequency',
      /must be one of/,
    ],
    // never
    [
      'never with pastFrequency',
      { status: 'never', pastFrequency: 'none' },
      'pastFrequency',
      /only status may be sent/,
    ],
    [
      'never with currentFrequency',
      { status: 'never', currentFrequency: 'none' },
      'currentFrequency',
      /omitted when status is never/,
    ],
    [
      'never with currentCigsPerDay',
      { status: 'never', currentCigsPerDay: 0 },
      'currentCigsPerDay',
      /omitted/,
    ],
    ['never with pastCigsPerDay', { status: 'never', pastCigsPerDay: 3 }, 'pastCigsPerDay', /omitted/],
    ['never with stopAge', { status: 'never', stopAge: 30 }, 'stopAge', /omitted/],
    ['never with startAge', { status: 'never', startAge: 15 }, 'startAge', /omitted/],
    // prefer_not_to_say
    [
      'prefer_not_to_say with pastFrequency',
      { status: 'prefer_not_to_say', pastFrequency: 'light' },
      'pastFrequency',
      /prefer_not_to_say/,
    ],
    [
      'prefer_not_to_say with currentFrequency',
      { status: 'prefer_not_to_say', currentFrequency: 'light' },
      'currentFrequency',
      /omitted/,
    ],
    [
      'prefer_not_to_say with currentCigsPerDay',
      { status: 'prefer_not_to_say', currentCigsPerDay: 4 },
      'currentCigsPerDay',
      /omitted/,
    ],
    [
      'prefer_not_to_say with pastCigsPerDay',
      { status: 'prefer_not_to_say', pastCigsPerDay: 4 },
      'pastCigsPerDay',
      /omitted/,
    ],
    ['prefer_not_to_say with stopAge', { status: 'prefer_not_to_say', stopAge: 30 }, 'stopAge', /omitted/],
    ['prefer_not_to_say with startAge', { status: 'prefer_not_to_say', startAge: 15 }, 'startAge', /omitted/],
    // former
    [
      'former without stopAge',
      { status: 'former', pastFrequency: 'light' },
      'stopAge',
      /stopAge is required when status is former/,
    ],
    [
      'former with stopAge -1',
      { status: 'former', stopAge: -1 },
      'stopAge',
      /stopAge is required when status is former/,
    ],
    [
      'former with currentFrequency',
      { status: 'former', stopAge: 40, currentFrequency: 'none' },
      'currentFrequency',
      /currentFrequency must be omitted when status is former/,
    ],
    [
      'former with currentCigsPerDay',
      { status: 'former', stopAge: 40, currentCigsPerDay: 5 },
      'currentCigsPerDay',
      /omitted when status is former/,
    ],
    [
      'former light with startAge',
      { status: 'former', pastFrequency: 'light', stopAge: 40, startAge: 18 },
      'startAge',
      /pastFrequency is heavy/,
    ],
    [
      'former without pastFrequency but with startAge',
      { status: 'former', stopAge: 40, startAge: 18 },
      'startAge',
      /heavy/,
    ],
    [
      'former with startAge above stopAge',
      { status: 'former', pastFrequency: 'heavy', stopAge: 30, startAge: 31 },
      'startAge',
      /must not be greater than stopAge/,
    ],
    [
      'former with stopAge above the subject age',
      { status: 'former', stopAge: 55 },
      'stopAge',
      /subject's age \(54\)/,
    ],
    [
      'former heavy with startAge above the subject age',
      { status: 'former', pastFrequency: 'heavy', stopAge: 54, startAge: 60 },
      'startAge',
      /subject's age/,
    ],
    // current
    [
      'current with pastFrequency',
      { status: 'current', currentCigsPerDay: 10, pastFrequency: 'light' },
      'pastFrequency',
      /omitted when status is current/,
    ],
    [
      'current with pastCigsPerDay',
      { status: 'current', currentCigsPerDay: 10, pastCigsPerDay: 5 },
      'pastCigsPerDay',
      /omitted when status is current/,
    ],
    [
      'current with stopAge',
      { status: 'current', currentCigsPerDay: 10, stopAge: 30 },
      'stopAge',
      /omitted when status is current/,
    ],
    [
      'current light with startAge',
      { status: 'current', currentFrequency: 'light', startAge: 16 },
      'startAge',
      /currentFrequency is heavy/,
    ],
    [
      'current without intensity',
      { status: 'current' },
      'currentFrequency',
      /currentCigsPerDay is required when status is current/,
    ],
    [
      'current with only currentFrequency unknown',
      { status: 'current', currentFrequency: 'unknown' },
      'currentFrequency',
      /other than unknown/,
    ],
    [
      'current with only currentCigsPerDay -1',
      { status: 'current', currentCigsPerDay: -1 },
      'currentFrequency',
      /intensity/,
    ],
    [
      'current heavy with startAge above the subject age',
      { status: 'current', currentFrequency: 'heavy', startAge: 55 },
      'startAge',
      /subject's age/,
    ],
    ['an unknown smoking key', { status: 'never', brand: 'x' }, 'brand', /brand is not a recognised field/],
  ];

  it.each(rejected)('rejects %s at smoking.%s', (_name, smoking, field, message) => {
    const messages = expectRejectedAt(withSmoking(smoking), `${S}.${field}`);
    expect(messages.join(' | ')).toMatch(message);
  });

  it('reports every branch problem together', () => {
    const result = expectRejectedAt(
      withSmoking({ status: 'current', pastFrequency: 'light', stopAge: 20, pastCigsPerDay: 2 }),
      `${S}.pastFrequency`,
    );
    expect(result).toHaveLength(1);
    expectRejectedAt(withSmoking({ status: 'current', pastFrequency: 'light', stopAge: 20 }), `${S}.stopAge`);
    expectRejectedAt(
      withSmoking({ status: 'current', pastFrequency: 'light', stopAge: 20 }),
      `${S}.currentFrequency`,
    );
  });

  it('still applies the branch rules when another smoking field has a type error', () => {
    const body = withSmoking({ status: 'former', pastFrequency: 'light', pastCigsPerDay: 'ten' });
    expectRejectedAt(body, `${S}.pastCigsPerDay`);
    expectRejectedAt(body, `${S}.stopAge`);
  });

  it('does not apply branch rules when the status itself is invalid', () => {
    const result = expectRejectedAt(withSmoking({ status: 'sometimes', stopAge: 30 }), `${S}.status`);
    expect(result).toHaveLength(1);
    expectAccepted(withSmoking({ status: 'former', stopAge: 30 }));
  });
});
