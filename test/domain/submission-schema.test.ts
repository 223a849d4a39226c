import { describe, expect, it } from 'vitest';
import {
  build,
  example,
  expectAccepted,
  expectPlainMessage,
  expectRejectedAt,
  type JsonObject,
  mutate,
  NOW,
  parse,
  UNSET,
} from './submission-fixture.js';

type Changes = Record<string, unknown>;

const NEVER_SMOKER = { 'subject.history.smoking': { status: 'never' } };

describe('the example body', () => {
  it('parses, keeping every known field', () => {
    const parsed = expectAccepted(example());
    expect(parsed).toEqual(example());
  });

  it('drops unknown top-level keys from the parsed value', () => {
    const parsed = expectAccepted(build({ partnerNote: 'ignored', extra: { nested: true } }));
    expect(parsed).not.toHaveProperty('partnerNote');
    expect(parsed).not.toHaveProperty('extra');
  });
});

describe('body shape', () => {
  it.each([[null], [[1, 2, 3]], ['a string'], [42], [undefined]])(
    'rejects %j with a formErrors line',
    (body) => {
      const result = parse(body);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error.formErrors).toHaveLength(1);
        expectPlainMessage(result.error.formErrors[0]);
        expect(result.error.fieldErrors).toEqual({});
      }
    },
  );

  it('reports every problem at once, each at its own path', () => {
    const result = parse(
      build({
        schemaVersion: 'v0',
        'subject.demographics.sexAtBirth': 'x',
        'markers[3].value': 'high',
        'options.requestedOutputs': [],
        'subject.history.smoking.stopAge': UNSET,
      }),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(Object.keys(result.error.fieldErrors).sort()).toEqual(
        [
          'schemaVersion',
          'subject.demographics.sexAtBirth',
          'markers[3].value',
          'options.requestedOutputs',
          'subject.history.smoking.stopAge',
        ].sort(),
      );
    }
  });
});

describe('top-level fields', () => {
  const accepted: Array<[string, Changes]> = [
    ['an upper-case partnerId', { partnerId: '7B0C6A2E-3F4D-4F8E-9A61-2B1F0C9D8E7A' }],
    ['a partnerId of another UUID version', { partnerId: '12345678-1234-1234-1234-123456789012' }],
    ['a one-character partnerSubmissionId', { partnerSubmissionId: 'x' }],
    ['a 512-character partnerSubmissionId', { partnerSubmissionId: 'x'.repeat(512) }],
    ['a one-character partnerSubjectId', { partnerSubjectId: 'x' }],
    ['a 512-character partnerSubjectId', { partnerSubjectId: 'a'.repeat(512) }],
    ['a UUID partnerSubjectId', { partnerSubjectId: '12345678-1234-1234-1234-123456789012' }],
    ['partnerSubjectId P-2026-000123', { partnerSubjectId: 'P-2026-000123' }],
    ['partnerSubjectId patient-42', { partnerSubjectId: 'patient-42' }],
    ['no sourceMetadata', { sourceMetadata: UNSET }],
    ['an empty sourceMetadata', { sourceMetadata: {} }],
  ];
  it.each(accepted)('accepts %s', (_name, changes) => {
    expectAccepted(build(changes));
  });

  const rejected: Array<[string, Changes, string]> = [
    ['a missing schemaVersion', { schemaVersion: UNSET }, 'schemaVersion'],
    ['schemaVersion canonical_submission_v2', { schemaVersion: 'canonical_submission_v2' }, 'schemaVersion'],
    ['a missing partnerId', { partnerId: UNSET }, 'partnerId'],
    ['a partnerId that is not a UUID', { partnerId: 'partner-1' }, 'partnerId'],
    ['a partnerId with a bad length', { partnerId: '7b0c6a2e-3f4d-4f8e-9a61-2b1f0c9d8e7' }, 'partnerId'],
    ['a numeric partnerId', { partnerId: 42 }, 'partnerId'],
    ['a missing partnerSubmissionId', { partnerSubmissionId: UNSET }, 'partnerSubmissionId'],
    ['an empty partnerSubmissionId', { partnerSubmissionId: '' }, 'partnerSubmissionId'],
    ['a 513-character partnerSubmissionId', { partnerSubmissionId: 'x'.repeat(513) }, 'partnerSubmissionId'],
    ['a missing partnerSubjectId', { partnerSubjectId: UNSET }, 'partnerSubjectId'],
    ['an empty partnerSubjectId', { partnerSubjectId: '' }, 'partnerSubjectId'],
    ['a 513-character partnerSubjectId', { partnerSubjectId: 'a'.repeat(513) }, 'partnerSubjectId'],
    ['an e-mail partnerSubjectId', { partnerSubjectId: 'jane.doe@example.com' }, 'partnerSubjectId'],
    ['a record-number partnerSubjectId', { partnerSubjectId: 'MRN 00123456' }, 'partnerSubjectId'],
    ['a phone-number partnerSubjectId', { partnerSubjectId: '07700 900123' }, 'partnerSubjectId'],
    ['a postcode partnerSubjectId', { partnerSubjectId: 'SW1A 1AA' }, 'partnerSubjectId'],
    ['an NHS-number partnerSubjectId', { partnerSubjectId: '943 476 5919' }, 'partnerSubjectId'],
    ['a street-address partnerSubjectId', { partnerSubjectId: '221B Baker Street' }, 'partnerSubjectId'],
    ['a missing subject', { subject: UNSET }, 'subject'],
    ['a subject that is a string', { subject: 'jane' }, 'subject'],
    ['a missing demographics', { 'subject.demographics': UNSET }, 'subject.demographics'],
    ['a missing options', { options: UNSET }, 'options'],
    ['a sourceMetadata list', { sourceMetadata: [] }, 'sourceMetadata'],
  ];
  it.each(rejected)('rejects %s at %s', (_name, changes, key) => {
    expectRejectedAt(build(changes), key);
  });

  it('names the identifier kind and asks for a de-identified reference', () => {
    const [message] = expectRejectedAt(
      build({ partnerSubjectId: 'jane.doe@example.com' }),
      'partnerSubjectId',
    );
    expect(message).toMatch(/e-mail address/);
    expect(message).toMatch(/de-identified/);
    expect(message).not.toMatch(/jane/);
  });

  it('words a missing field as required', () => {
    expect(expectRejectedAt(build({ partnerId: UNSET }), 'partnerId')).toEqual(['partnerId is required']);
  });

  it('does not echo a long value', () => {
    const long = `${'x'.repeat(600)}`;
    const [message] = expectRejectedAt(build({ partnerSubmissionId: long }), 'partnerSubmissionId');
    expect(message).not.toContain('xxxxxxxxxx');
  });
});

describe('demographics and ages', () => {
  const accepted: Array<[string, Changes]> = [
    ['sexAtBirth male', { 'subject.demographics.sexAtBirth': 'male' }],
    ['sexAtBirth female', { 'subject.demographics.sexAtBirth': 'female' }],
    [
      'birthYear instead of ageYears',
      { 'subject.demographics.ageYears': UNSET, 'subject.demographics.birthYear': 1972 },
    ],
    ['birthYear agreeing with ageYears', { 'subject.demographics.birthYear': 1972 }],
    [
      'birthYear one year off ageYears (birthday not yet reached)',
      { 'subject.demographics.birthYear': 1971 },
    ],
    ['birthYear one year off ageYears the other way', { 'subject.demographics.birthYear': 1973 }],
    [
      'a birthYear of this year (age 0)',
      { ...NEVER_SMOKER, 'subject.demographics.ageYears': UNSET, 'subject.demographics.birthYear': 2026 },
    ],
    [
      'a birthYear implying age 120',
      { ...NEVER_SMOKER, 'subject.demographics.ageYears': UNSET, 'subject.demographics.birthYear': 1906 },
    ],
    ['no ethnicity', { 'subject.demographics.ethnicity': UNSET }],
    ['a 100-character ethnicity', { 'subject.demographics.ethnicity': 'e'.repeat(100) }],
    ['no educationYears', { 'subject.demographics.educationYears': UNSET }],
  ];
  it.each(accepted)('accepts %s', (_name, changes) => {
    expectAccepted(build(changes));
  });

  const rejected: Array<[string, Changes, string]> = [
    ['a missing sexAtBirth', { 'subject.demographics.sexAtBirth': UNSET }, 'subject.demographics.sexAtBirth'],
    [
      'sexAtBirth unknown',
      { 'subject.demographics.sexAtBirth': 'unknown' },
      'subject.demographics.sexAtBirth',
    ],
    [
      'sexAtBirth in capitals',
      { 'subject.demographics.sexAtBirth': 'FEMALE' },
      'subject.demographics.sexAtBirth',
    ],
    [
      'neither ageYears nor birthYear',
      { 'subject.demographics.ageYears': UNSET },
      'subject.demographics.ageYears',
    ],
    ['a string ageYears', { 'subject.demographics.ageYears': '54' }, 'subject.demographics.ageYears'],
    ['a fractional ageYears', { 'subject.demographics.ageYears': 54.5 }, 'subject.demographics.ageYears'],
    [
      'a birthYear in the future',
      { ...NEVER_SMOKER, 'subject.demographics.ageYears': UNSET, 'subject.demographics.birthYear': 2027 },
      'subject.demographics.birthYear',
    ],
    [
      'a birthYear implying age 121',
      { ...NEVER_SMOKER, 'subject.demographics.ageYears': UNSET, 'subject.demographics.birthYear': 1905 },
      'subject.demographics.birthYear',
    ],
    [
      'a birthYear two years off ageYears',
      { 'subject.demographics.birthYear': 1970 },
      'subject.demographics.birthYear',
    ],
    [
      'a birthYear two years off the other way',
      { 'subject.demographics.birthYear': 1974 },
      'subject.demographics.birthYear',
    ],
    ['an empty ethnicity', { 'subject.demographics.ethnicity': '' }, 'subject.demographics.ethnicity'],
    [
      'a 101-character ethnicity',
      { 'subject.demographics.ethnicity': 'e'.repeat(101) },
      'subject.demographics.ethnicity',
    ],
  ];
  it.each(rejected)('rejects %s at %s', (_name, changes, key) => {
    expectRejectedAt(build(changes), key);
  });

  it('judges birthYear at sourceTimestamp when sent, else at now', () => {
    const body = build({
      ...NEVER_SMOKER,
      'subject.demographics.ageYears': UNSET,
      'subject.demographics.birthYear': 2027,
      'sourceMetadata.sourceTimestamp': '2027-03-01T00:00:00Z',
    });
    // sourceTimestamp (2027) wins over now (2026).
    expectAccepted(body, NOW);
    const withoutTimestamp = mutate(structuredClone(body), { 'sourceMetadata.sourceTimestamp': UNSET });
    expectRejectedAt(withoutTimestamp, 'subject.demographics.birthYear', NOW);
    expectAccepted(withoutTimestamp, new Date('2027-06-01T00:00:00Z'));
  });

  it('asks for ageYears or birthYear in one message', () => {
    const [message] = expectRejectedAt(
      build({ 'subject.demographics.ageYears': UNSET }),
      'subject.demographics.ageYears',
    );
    expect(message).toMatch(/ageYears or birthYear is required/);
  });
});

interface NumericField {
  path: string;
  min: number;
  max: number;
  integer: boolean;
  /** -1 accepted as "not applicable" in this context. */
  sentinelOk?: boolean;
  /** Changes that make every in-range value valid for this field. */
  context: Changes;
}

const HEAVY_FORMER_AT_120 = {
  'subject.demographics.ageYears': 120,
  'subject.history.smoking': { status: 'former', pastFrequency: 'heavy', stopAge: 120 },
};

const NUMERIC_FIELDS: NumericField[] = [
  { path: 'subject.demographics.ageYears', min: 0, max: 120, integer: true, context: NEVER_SMOKER },
  {
    path: 'subject.demographics.birthYear',
    min: 1900,
    max: 2100,
    integer: true,
    // The bounds are type bounds; the age rule also needs a reference date that makes them plausible.
    context: { ...NEVER_SMOKER, 'subject.demographics.ageYears': UNSET },
  },
  { path: 'subject.demographics.educationYears', min: 0, max: 40, integer: true, context: {} },
  { path: 'subject.measurements.weightKg', min: 0, max: 300, integer: false, context: {} },
  { path: 'subject.measurements.heightCm', min: 0, max: 250, integer: false, context: {} },
  {
    path: 'subject.history.smoking.currentCigsPerDay',
    min: 0,
    max: 200,
    integer: false,
    sentinelOk: true,
    context: { 'subject.history.smoking': { status: 'current', currentFrequency: 'light' } },
  },
  {
    path: 'subject.history.smoking.pastCigsPerDay',
    min: 0,
    max: 200,
    integer: false,
    sentinelOk: true,
    context: {},
  },
  { path: 'subject.history.smoking.stopAge', min: 0, max: 120, integer: true, context: HEAVY_FORMER_AT_120 },
  {
    path: 'subject.history.smoking.startAge',
    min: 0,
    max: 120,
    integer: true,
    sentinelOk: true,
    context: HEAVY_FORMER_AT_120,
  },
  {
    path: 'subject.familyHistory.father.deathAge',
    min: 0,
    max: 120,
    integer: true,
    context: {},
  },
  {
    path: 'subject.familyHistory.mother.currentAge',
    min: 0,
    max: 120,
    integer: true,
    context: {},
  },
];

function contextFor(field: NumericField, value: number): Changes {
  if (field.path !== 'subject.demographics.birthYear') return field.context;
  // Reference year = birth year + 60 keeps the implied age in range at both ends.
  const year = Math.min(Math.max(value, 1900), 2100) + 60;
  return { ...field.context, 'sourceMetadata.sourceTimestamp': `${year}-06-01T00:00:00Z` };
}

describe('numeric bounds', () => {
  const acceptedCases = NUMERIC_FIELDS.flatMap((f) => {
    const values = [f.min, f.max, f.integer ? f.min + 1 : (f.min + f.max) / 2 + 0.25];
    if (f.sentinelOk) values.push(-1);
    return values.map((v) => [f.path, v, f] as const);
  });
  it.each(acceptedCases)('accepts %s = %d', (path, value, field) => {
    expectAccepted(build({ ...contextFor(field, value), [path]: value }));
  });

  const rejectedCases = NUMERIC_FIELDS.flatMap((f) => {
    const step = f.integer ? 1 : 0.5;
    const values: unknown[] = [f.max + step, String(f.min)];
    if (!f.sentinelOk || f.min - step !== -1) values.push(f.min - step);
    if (f.integer) values.push(f.min + 0.5);
    if (f.sentinelOk) values.push(-2, -0.5);
    return values.map((v) => [f.path, v, f] as const);
  });
  it.each(rejectedCases)('rejects %s = %j', (path, value, field) => {
    const messages = expectRejectedAt(build({ ...contextFor(field, 1950), [path]: value }), path);
    const name = path.split('.').at(-1)!;
    expect(messages.join(' ')).toContain(name);
  });

  it('words a range error with both bounds', () => {
    const [message] = expectRejectedAt(
      build({ 'subject.demographics.ageYears': 121 }),
      'subject.demographics.ageYears',
    );
    expect(message).toBe('ageYears must be between 0 and 120');
  });

  it('mentions -1 for sentinel fields', () => {
    const [message] = expectRejectedAt(
      build({ 'subject.history.smoking.pastCigsPerDay': 201 }),
      'subject.history.smoking.pastCigsPerDay',
    );
    expect(message).toMatch(/0 to 200, or -1/);
  });

  it('rejects a non-finite number with a plain message', () => {
    const [message] = expectRejectedAt(
      build({ 'subject.measurements.weightKg': Number.POSITIVE_INFINITY }),
      'subject.measurements.weightKg',
    );
    expect(message).toBe('weightKg must be a finite number');
  });

  it('says "must be a number" for a string', () => {
    const [message] = expectRejectedAt(
      build({ 'subject.measurements.heightCm': '165' }),
      'subject.measurements.heightCm',
    );
    expect(message).toMatch(/^heightCm must be a number/);
  });
});

describe('history', () => {
  const healths = ['excellent', 'very_good', 'good', 'fair', 'poor', 'unknown'];
  it.each(healths.map((h) => [h]))('accepts overallHealth %s', (value) => {
    expectAccepted(build({ 'subject.history.overallHealth': value }));
  });

  const conditionKeys = [
    'hasDiabetes',
    'hasDementia',
    'hasCardioCerebrovascular',
    'hasLungCancer',
    'hasKidneyDisease',
  ];
  it.each(conditionKeys.flatMap((k) => [[k, true] as const, [k, false] as const]))(
    'accepts %s = %s',
    (key, value) => {
      expectAccepted(build({ [`subject.history.conditions.${key}`]: value }));
    },
  );

  it.each([
    ['no history', { 'subject.history': UNSET }],
    ['an empty history', { 'subject.history': {} }],
    ['no measurements', { 'subject.measurements': UNSET }],
    ['no familyHistory', { 'subject.familyHistory': UNSET }],
    ['empty conditions', { 'subject.history.conditions': {} }],
    ['takesRegularMedication false', { 'subject.history.medications.takesRegularMedication': false }],
    ['no medications object', { 'subject.history.medications': UNSET }],
  ] as Array<[string, Changes]>)('accepts %s', (_name, changes) => {
    expectAccepted(build(changes));
  });

  it.each([
    [
      'an unknown overallHealth',
      { 'subject.history.overallHealth': 'great' },
      'subject.history.overallHealth',
    ],
    [
      'a string condition flag',
      { 'subject.history.conditions.hasDiabetes': 'no' },
      'subject.history.conditions.hasDiabetes',
    ],
    [
      'medications without takesRegularMedication',
      { 'subject.history.medications': {} },
      'subject.history.medications.takesRegularMedication',
    ],
    [
      'a numeric takesRegularMedication',
      { 'subject.history.medications.takesRegularMedication': 1 },
      'subject.history.medications.takesRegularMedication',
    ],
  ] as Array<[string, Changes, string]>)('rejects %s at %s', (_name, changes, key) => {
    expectRejectedAt(build(changes), key);
  });

  it('lists the allowed values of an enum', () => {
    const [message] = expectRejectedAt(
      build({ 'subject.history.overallHealth': 'great' }),
      'subject.history.overallHealth',
    );
    expect(message).toBe('overallHealth must be one of: excellent, very_good, good, fair, poor, unknown');
  });

  it('words a missing required field', () => {
    const [message] = expectRejectedAt(
      build({ 'subject.history.medications': {} }),
      'subject.history.medications.takesRegularMedication',
    );
    expect(message).toBe('takesRegularMedication is required');
  });
});

describe('unknown keys', () => {
  const nested: Array<[string, string]> = [
    ['subject.nickname', 'subject.nickname'],
    ['subject.demographics.nickname', 'subject.demographics.nickname'],
    ['subject.measurements.bmi', 'subject.measurements.bmi'],
    ['subject.history.alcohol', 'subject.history.alcohol'],
    ['subject.history.smoking.brand', 'subject.history.smoking.brand'],
    ['subject.history.conditions.hasAsthma', 'subject.history.conditions.hasAsthma'],
    ['subject.history.medications.list', 'subject.history.medications.list'],
    ['subject.familyHistory.sister', 'subject.familyHistory.sister'],
    ['subject.familyHistory.father.causeOfDeath', 'subject.familyHistory.father.causeOfDeath'],
    ['markers[0].flag', 'markers[0].flag'],
    ['options.priority', 'options.priority'],
    ['sourceMetadata.operator', 'sourceMetadata.operator'],
    ['sourceMetadata.markerRanges.ALT.note', 'sourceMetadata.markerRanges.ALT.note'],
  ];
  it.each(nested)('rejects %s at its own path', (path, key) => {
    const changes: Changes = { [path]: 'x' };
    if (path.startsWith('sourceMetadata.markerRanges')) {
      changes['sourceMetadata.markerRanges'] = {
        ALT: { unit: 'U/L', lowerBound: 3, upperBound: 500, note: 'x' },
      };
      delete changes[path];
    }
    const messages = expectRejectedAt(build(changes), key);
    expect(messages).toEqual([
      `${key
        .split('.')
        .at(-1)!
        .replace(/^.*\]\./, '')} is not a recognised field`,
    ]);
  });

  it('rejects an unknown key on a report document', () => {
    const body = build({
      markers: UNSET,
      reportDocuments: [
        { documentType: 'letter', effectiveAt: '2026-11-20', summaryText: 'ok', author: 'x' },
      ],
    });
    expectRejectedAt(body, 'reportDocuments[0].author');
  });

  it('quotes a key that is not a plain identifier in the path', () => {
    expectRejectedAt(
      build({ 'subject.demographics': { sexAtBirth: 'female', ageYears: 54, 'my key': 1 } }),
      'subject.demographics["my key"]',
    );
  });

  it('reports several unknown keys separately', () => {
    const result = parse(build({ 'subject.demographics.a': 1, 'subject.demographics.b': 2 }));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.fieldErrors['subject.demographics.a']).toEqual(['a is not a recognised field']);
      expect(result.error.fieldErrors['subject.demographics.b']).toEqual(['b is not a recognised field']);
    }
  });
});

describe('legacy shapes', () => {
  it('rejects requestedAssessments and names options.requestedOutcomes', () => {
    const [message] = expectRejectedAt(
      build({ requestedAssessments: ['cardiovascular'] }),
      'requestedAssessments',
    );
    expect(message).toMatch(/options\.requestedOutcomes/);
  });

  it.each([
    [{ healthQuestionnaireMarkers: [], bloodMarkers: [] }],
    [{ bloodMarkers: [{ code: 'ALT', value: 22, unit: 'U/L' }] }],
    [{ healthQuestionnaireMarkers: {} }],
  ])('rejects the legacy markers object %j and names the list shape', (legacy) => {
    const messages = expectRejectedAt(build({ markers: legacy }), 'markers');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatch(/legacy/);
    expect(messages[0]).toMatch(/list of \{ code, value, unit \}/);
  });

  it('rejects another object as markers without the legacy wording', () => {
    const [message] = expectRejectedAt(build({ markers: { ALT: 22 } }), 'markers');
    expect(message).toMatch(/must be a list/);
  });
});

describe('markers and report documents', () => {
  const doc = {
    documentType: 'lab_summary',
    effectiveAt: '2026-11-20T09:30:00Z',
    summaryText: 'HbA1c 37 mmol/mol.',
  };
  const accepted: Array<[string, Changes]> = [
    ['documents instead of markers', { markers: UNSET, reportDocuments: [doc] }],
    ['documents with empty markers', { markers: [], reportDocuments: [doc] }],
    ['markers with empty documents', { reportDocuments: [] }],
    ['markers and documents', { reportDocuments: [doc] }],
    ['20 documents', { reportDocuments: Array.from({ length: 20 }, () => doc) }],
    ['a date effectiveAt', { reportDocuments: [{ ...doc, effectiveAt: '2026-11-20' }] }],
    ['an offset effectiveAt', { reportDocuments: [{ ...doc, effectiveAt: '2026-11-20T09:30:00+01:00' }] }],
    ['a 100-character documentType', { reportDocuments: [{ ...doc, documentType: 'd'.repeat(100) }] }],
    ['a 20,000-character summary', { reportDocuments: [{ ...doc, summaryText: 'Normal. '.repeat(2500) }] }],
    ['a marker observedAt date-time', { 'markers[0].observedAt': '2026-11-19T08:00:00Z' }],
    ['a marker observedAt date', { 'markers[0].observedAt': '2026-11-19' }],
    ['a 64-character marker code (judged by the panel)', { 'markers[0].code': 'C'.repeat(64) }],
  ];
  it.each(accepted)('accepts %s', (_name, changes) => {
    expectAccepted(build(changes));
  });

  const rejected: Array<[string, Changes, string]> = [
    ['no markers and no documents', { markers: UNSET }, 'markers'],
    ['empty markers and no documents', { markers: [] }, 'markers'],
    ['empty markers and empty documents', { markers: [], reportDocuments: [] }, 'markers'],
    [
      '21 documents',
      { markers: UNSET, reportDocuments: Array.from({ length: 21 }, () => doc) },
      'reportDocuments',
    ],
    [
      'a document without summaryText',
      { reportDocuments: [{ documentType: 'x', effectiveAt: '2026-11-20' }] },
      'reportDocuments[0].summaryText',
    ],
    [
      'an empty summaryText',
      { reportDocuments: [{ ...doc, summaryText: '' }] },
      'reportDocuments[0].summaryText',
    ],
    [
      'a 20,001-character summary',
      { reportDocuments: [{ ...doc, summaryText: 's'.repeat(20_001) }] },
      'reportDocuments[0].summaryText',
    ],
    [
      'an empty documentType',
      { reportDocuments: [{ ...doc, documentType: '' }] },
      'reportDocuments[0].documentType',
    ],
    [
      'a 101-character documentType',
      { reportDocuments: [{ ...doc, documentType: 'd'.repeat(101) }] },
      'reportDocuments[0].documentType',
    ],
    [
      'a free-text effectiveAt',
      { reportDocuments: [{ ...doc, effectiveAt: 'last week' }] },
      'reportDocuments[0].effectiveAt',
    ],
    [
      'an effectiveAt without a time zone',
      { reportDocuments: [{ ...doc, effectiveAt: '2026-11-20T09:30:00' }] },
      'reportDocuments[0].effectiveAt',
    ],
    ['a document that is a string', { reportDocuments: ['report'] }, 'reportDocuments[0]'],
    ['reportDocuments as an object', { reportDocuments: { a: doc } }, 'reportDocuments'],
    ['a marker without code', { 'markers[0].code': UNSET }, 'markers[0].code'],
    ['an empty marker code', { 'markers[0].code': '' }, 'markers[0].code'],
    ['a 65-character marker code', { 'markers[0].code': 'C'.repeat(65) }, 'markers[0].code'],
    ['a marker without value', { 'markers[3].value': UNSET }, 'markers[3].value'],
    ['a string marker value', { 'markers[3].value': '24' }, 'markers[3].value'],
    ['a null marker value', { 'markers[3].value': null }, 'markers[3].value'],
    ['a marker without unit', { 'markers[2].unit': UNSET }, 'markers[2].unit'],
    ['an empty marker unit', { 'markers[2].unit': '' }, 'markers[2].unit'],
    ['a 33-character marker unit', { 'markers[2].unit': 'u'.repeat(33) }, 'markers[2].unit'],
    ['a bad observedAt', { 'markers[0].observedAt': '20/11/2026' }, 'markers[0].observedAt'],
    ['a marker that is a number', { 'markers[5]': 5.4 }, 'markers[5]'],
  ];
  it.each(rejected)('rejects %s at %s', (_name, changes, key) => {
    expectRejectedAt(build(changes), key);
  });

  const identifierTexts: Array<[string, string]> = [
    ['Call +44 20 7946 0958 to book.', 'phone number'],
    ['Reply to j.doe@example.com', 'e-mail address'],
    ['Patient MRN 00123456 reviewed.', 'record number'],
    ['Lives at 12 Baker Street.', 'postal address'],
    ['Postcode SW1A 1AA.', 'postal code'],
    ['NHS number 943 476 5919.', 'national identifier'],
  ];
  it.each(identifierTexts)('rejects a summaryText containing %j (a %s)', (summaryText, kind) => {
    const [message] = expectRejectedAt(
      build({ markers: UNSET, reportDocuments: [{ ...doc, summaryText }] }),
      'reportDocuments[0].summaryText',
    );
    expect(message).toContain(kind);
  });

  it('rejects a marker value of Infinity and NaN', () => {
    expectRejectedAt(build({ 'markers[0].value': Number.POSITIVE_INFINITY }), 'markers[0].value');
    expectRejectedAt(build({ 'markers[0].value': Number.NaN }), 'markers[0].value');
  });
});

describe('options', () => {
  it.each([['inference_score_v1'], ['score'], ['json'], ['pdf'], ['html']])(
    'accepts requestedOutputs [%s]',
    (output) => {
      expectAccepted(build({ 'options.requestedOutputs': [output] }));
    },
  );

  it.each([
    ['duplicate outputs', { 'options.requestedOutputs': ['pdf', 'pdf', 'json'] }],
    ['no requestedOutcomes', { 'options.requestedOutcomes': UNSET }],
    ['empty requestedOutcomes', { 'options.requestedOutcomes': [] }],
    ['8 outcomes', { 'options.requestedOutcomes': Array.from({ length: 8 }, () => 'wellbeing.renal') }],
    [
      'synonyms and legacy names',
      {
        'options.requestedOutcomes': ['cardiovascular_wellbeing_10y', 'wellbeing.kidney', 'renal.wellbeing'],
      },
    ],
    ['kidney_wellbeing_10y', { 'options.requestedOutcomes': ['kidney_wellbeing_10y'] }],
    ['wellbeing.general', { 'options.requestedOutcomes': ['wellbeing.general'] }],
  ] as Array<[string, Changes]>)('accepts %s', (_name, changes) => {
    expectAccepted(build(changes));
  });

  it.each([
    ['no requestedOutputs', { 'options.requestedOutputs': UNSET }, 'options.requestedOutputs'],
    ['empty requestedOutputs', { 'options.requestedOutputs': [] }, 'options.requestedOutputs'],
    ['an unknown output', { 'options.requestedOutputs': ['json', 'xml'] }, 'options.requestedOutputs[1]'],
    ['requestedOutputs as a string', { 'options.requestedOutputs': 'pdf' }, 'options.requestedOutputs'],
    [
      'an unknown outcome',
      { 'options.requestedOutcomes': ['wellbeing.happiness'] },
      'options.requestedOutcomes[0]',
    ],
    [
      'an unknown outcome after a good one',
      { 'options.requestedOutcomes': ['wellbeing.renal', 'mood'] },
      'options.requestedOutcomes[1]',
    ],
    ['a numeric outcome', { 'options.requestedOutcomes': [3] }, 'options.requestedOutcomes[0]'],
    [
      '9 outcomes',
      { 'options.requestedOutcomes': Array.from({ length: 9 }, () => 'wellbeing.renal') },
      'options.requestedOutcomes',
    ],
  ] as Array<[string, Changes, string]>)('rejects %s at %s', (_name, changes, key) => {
    expectRejectedAt(build(changes), key);
  });

  it('lists the accepted outcome names', () => {
    const [message] = expectRejectedAt(
      build({ 'options.requestedOutcomes': ['wellbeing.happiness'] }),
      'options.requestedOutcomes[0]',
    );
    expect(message).toMatch(/wellbeing\.cardiovascular, wellbeing\.renal, wellbeing\.cognitive/);
    expect(message).not.toMatch(/happiness/);
  });

  it('says how many outcomes were sent', () => {
    const [message] = expectRejectedAt(
      build({ 'options.requestedOutcomes': Array.from({ length: 9 }, () => 'wellbeing.renal') }),
      'options.requestedOutcomes',
    );
    expect(message).toBe('requestedOutcomes must contain at most 8 entries; 9 were sent');
  });
});

describe('sourceMetadata', () => {
  it.each([
    ['an offset sourceTimestamp', { 'sourceMetadata.sourceTimestamp': '2026-11-20T09:30:00+05:30' }],
    ['fractional seconds', { 'sourceMetadata.sourceTimestamp': '2026-11-20T09:30:00.250Z' }],
    ['no sourceTimestamp', { 'sourceMetadata.sourceTimestamp': UNSET }],
    ['a 200-character labName', { 'sourceMetadata.labName': 'l'.repeat(200) }],
    ['a facilityId', { 'sourceMetadata.facilityId': 'fac-1' }],
    ['empty markerRanges', { 'sourceMetadata.markerRanges': {} }],
    [
      'a markerRanges entry',
      { 'sourceMetadata.markerRanges': { ALT: { unit: 'U/L', lowerBound: 3, upperBound: 500 } } },
    ],
    [
      'a markerRanges entry for an unknown code (judged by the panel)',
      { 'sourceMetadata.markerRanges': { TSH: { unit: 'mU/L', lowerBound: 0.4, upperBound: 4 } } },
    ],
  ] as Array<[string, Changes]>)('accepts %s', (_name, changes) => {
    expectAccepted(build(changes));
  });

  it.each([
    [
      'a date-only sourceTimestamp',
      { 'sourceMetadata.sourceTimestamp': '2026-11-20' },
      'sourceMetadata.sourceTimestamp',
    ],
    [
      'a sourceTimestamp without a zone',
      { 'sourceMetadata.sourceTimestamp': '2026-11-20T09:30:00' },
      'sourceMetadata.sourceTimestamp',
    ],
    ['an empty sourceSystem', { 'sourceMetadata.sourceSystem': '' }, 'sourceMetadata.sourceSystem'],
    ['a 201-character labName', { 'sourceMetadata.labName': 'l'.repeat(201) }, 'sourceMetadata.labName'],
    ['a numeric facilityId', { 'sourceMetadata.facilityId': 7 }, 'sourceMetadata.facilityId'],
    [
      'a display string instead of a range',
      { 'sourceMetadata.markerRanges': { ALT: '3-500 U/L' } },
      'sourceMetadata.markerRanges.ALT',
    ],
    [
      'a range without unit',
      { 'sourceMetadata.markerRanges': { ALT: { lowerBound: 3, upperBound: 500 } } },
      'sourceMetadata.markerRanges.ALT.unit',
    ],
    [
      'a string lowerBound',
      { 'sourceMetadata.markerRanges': { ALT: { unit: 'U/L', lowerBound: '3', upperBound: 500 } } },
      'sourceMetadata.markerRanges.ALT.lowerBound',
    ],
    [
      'a missing upperBound',
      { 'sourceMetadata.markerRanges': { ALT: { unit: 'U/L', lowerBound: 3 } } },
      'sourceMetadata.markerRanges.ALT.upperBound',
    ],
    ['markerRanges as a list', { 'sourceMetadata.markerRanges': [] }, 'sourceMetadata.markerRanges'],
  ] as Array<[string, Changes, string]>)('rejects %s at %s', (_name, changes, key) => {
    expectRejectedAt(build(changes), key);
  });

  it('explains that a display string is not a range object', () => {
    const [message] = expectRejectedAt(
      build({ 'sourceMetadata.markerRanges': { ALT: '3-500 U/L' } }),
      'sourceMetadata.markerRanges.ALT',
    );
    expect(message).toMatch(/display string/);
  });
});

describe('questionnaire and clinicalExtensions', () => {
  const extensions = (n: number, prefix = 'extension') =>
    Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));

  it.each([
    ['a questionnaire object', { questionnaire: { likertVersion: 'v0', items: [] } }],
    ['an empty questionnaire', { questionnaire: {} }],
    ['a nested questionnaire', { questionnaire: { sections: [{ items: [{ score: 3 }] }] } }],
    ['64 clinicalExtensions keys', { clinicalExtensions: extensions(64) }],
    ['an empty clinicalExtensions', { clinicalExtensions: {} }],
    [
      'nested clinicalExtensions with ordinary keys',
      {
        clinicalExtensions: {
          biomarkerVersion: 'v2',
          studyArm: 'B',
          visitNumber: 3,
          meta: { addressed: true },
        },
      },
    ],
    ['identifier-like values (only keys are scanned)', { clinicalExtensions: { note: 'firstName' } }],
  ] as Array<[string, Changes]>)('accepts %s', (_name, changes) => {
    expectAccepted(build(changes));
  });

  it.each([
    ['65 clinicalExtensions keys', { clinicalExtensions: extensions(65) }, 'clinicalExtensions'],
    ['clinicalExtensions as a list', { clinicalExtensions: [] }, 'clinicalExtensions'],
    ['questionnaire as a string', { questionnaire: 'yes' }, 'questionnaire'],
    [
      'an identifier key in clinicalExtensions',
      { clinicalExtensions: { patientEmail: 'x' } },
      'clinicalExtensions.patientEmail',
    ],
    [
      'a nested identifier key',
      { clinicalExtensions: { contact: { details: { phoneNumber: 'x' } } } },
      'clinicalExtensions.contact.details.phoneNumber',
    ],
    [
      'an identifier key inside a list',
      { clinicalExtensions: { visits: [{ ok: 1 }, { dateOfBirth: 'x' }] } },
      'clinicalExtensions.visits[1].dateOfBirth',
    ],
    [
      'an identifier key in questionnaire',
      { questionnaire: { first_name: 'x' } },
      'questionnaire.first_name',
    ],
    [
      'a nested identifier key in questionnaire',
      { questionnaire: { items: [{ nhsNumber: 1 }] } },
      'questionnaire.items[0].nhsNumber',
    ],
  ] as Array<[string, Changes, string]>)('rejects %s at %s', (_name, changes, key) => {
    expectRejectedAt(build(changes), key);
  });

  it('says how many clinicalExtensions keys were sent', () => {
    const [message] = expectRejectedAt(build({ clinicalExtensions: extensions(65) }), 'clinicalExtensions');
    expect(message).toBe('clinicalExtensions may hold at most 64 keys; 65 were sent');
  });

  it('explains an identifier key', () => {
    const [message] = expectRejectedAt(
      build({ clinicalExtensions: { patientEmail: 'x' } }),
      'clinicalExtensions.patientEmail',
    );
    expect(message).toMatch(/^patientEmail looks like a direct identifier/);
  });

  it('survives deeply nested input', () => {
    let deep: JsonObject = { leaf: 1 };
    for (let i = 0; i < 5000; i++) deep = { level: deep };
    const body = example();
    body.questionnaire = deep;
    expectAccepted(body);
    (deep as { level: JsonObject }).level = { firstName: 'x' };
    expect(parse(body).ok).toBe(false);
  });
});

describe('hostile keys', () => {
  it('treats an own __proto__ key as data without touching prototypes', () => {
    const body = JSON.parse(
      JSON.stringify(example()).replace('"sexAtBirth"', '"__proto__":{"polluted":true},"sexAtBirth"'),
    ) as JsonObject;
    const result = parse(body);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(Object.keys(result.error.fieldErrors)).toContain('subject.demographics.__proto__');
    }
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();

    const withQuestionnaire = example();
    withQuestionnaire.questionnaire = JSON.parse('{"__proto__":{"polluted":true},"items":[]}');
    expectAccepted(withQuestionnaire);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('ignores a top-level __proto__ key like any unknown top-level key', () => {
    const body = JSON.parse(JSON.stringify(example()).replace('{', '{"__proto__":{"x":1},')) as JsonObject;
    const parsed = expectAccepted(body);
    expect(Object.hasOwn(parsed, '__proto__')).toBe(false);
  });
});

describe('a body with very many problems', () => {
  it('lists the first 100 fields and says how many more there are', () => {
    const body = example();
    body.markers = Array.from({ length: 150 }, () => ({ code: 7, value: 'x', unit: 1 }));
    const result = parse(body);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(Object.keys(result.error.fieldErrors)).toHaveLength(100);
    expect(result.error.formErrors.at(-1)).toMatch(
      /^\d+ more fields have problems; the first 100 are listed\.$/,
    );
  });
});
