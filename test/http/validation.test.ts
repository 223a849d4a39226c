import { describe, expect, it } from 'vitest';
import {
  bodyFor,
  errorOf,
  type MutableBody,
  postSubmission,
  serviceWithAccount,
} from '../helpers/service.js';

/**
 * One accepted and one rejected case per rule of the contract, over real HTTP. The domain
 * tests cover each rule's edges; these prove the HTTP layer answers each with the right status,
 * error code and JSON path, in the spec's order (schema, then partner id, then panel).
 */

type Body = MutableBody;
type Mutation = (b: Body) => void;

const ctx = serviceWithAccount();

const smoking = (b: Body, s: Record<string, unknown>) => {
  b.subject.history.smoking = s;
};
const marker = (b: Body, code: string) => b.markers.find((m: { code: string }) => m.code === code);
const markerIndex = (b: Body, code: string) => b.markers.findIndex((m: { code: string }) => m.code === code);

const accepted: Array<[string, Mutation]> = [
  ['the example body as is', () => {}],
  [
    'birthYear instead of ageYears',
    (b) => {
      delete b.subject.demographics.ageYears;
      b.subject.demographics.birthYear = 1972;
    },
  ],
  ['a never smoker with status only', (b) => smoking(b, { status: 'never' })],
  ['no smoking object', (b) => delete b.subject.history.smoking],
  ['prefer_not_to_say with status only', (b) => smoking(b, { status: 'prefer_not_to_say' })],
  [
    'a current smoker with cigarettes per day only',
    (b) => smoking(b, { status: 'current', currentCigsPerDay: 12 }),
  ],
  [
    'a heavy current smoker with startAge',
    (b) => smoking(b, { status: 'current', currentFrequency: 'heavy', currentCigsPerDay: 25, startAge: 17 }),
  ],
  [
    'a heavy former smoker with startAge',
    (b) =>
      smoking(b, { status: 'former', pastFrequency: 'heavy', pastCigsPerDay: 20, stopAge: 41, startAge: 18 }),
  ],
  [
    'the -1 sentinel on optional smoking numbers',
    (b) =>
      smoking(b, { status: 'former', pastFrequency: 'light', pastCigsPerDay: -1, stopAge: 40, startAge: -1 }),
  ],
  [
    '-1 sentinels where family ages do not apply',
    (b) => {
      b.subject.familyHistory.father = {
        aliveStatus: 'deceased',
        deathAge: 78,
        currentAge: -1,
        conditions: [],
      };
      b.subject.familyHistory.mother = { aliveStatus: 'unknown', deathAge: -1, currentAge: -1 };
    },
  ],
  [
    'legacy and synonym outcome names',
    (b) => {
      b.options.requestedOutcomes = ['cardiovascular_wellbeing_10y', 'wellbeing.kidney', 'renal.wellbeing'];
    },
  ],
  ['no requestedOutcomes (server defaults)', (b) => delete b.options.requestedOutcomes],
  [
    'marker aliases and µ/μ/u unit spellings',
    (b) => {
      marker(b, 'ALBUMIN').code = 'ALB';
      marker(b, 'URATE').code = 'UA';
      marker(b, 'UA').unit = 'umol/L';
      marker(b, 'HBA1C_MMOL_MOL').code = 'HBA1C';
    },
  ],
  [
    'the Greek mu in a unit',
    (b) => {
      marker(b, 'URATE').unit = 'μmol/L';
    },
  ],
  [
    'markerRanges widening a bound',
    (b) => {
      marker(b, 'CRP').value = 95;
      b.sourceMetadata.markerRanges = { CRP: { unit: 'mg/L', lowerBound: 0.08, upperBound: 120 } };
    },
  ],
  [
    'documents instead of markers',
    (b) => {
      delete b.markers;
      b.reportDocuments = [
        {
          documentType: 'lab_summary',
          effectiveAt: '2026-11-20T09:30:00Z',
          summaryText: 'HbA1c 37 mmol/mol, LDL 3.2 mmol/L.',
        },
      ];
    },
  ],
  [
    '64 ordinary clinicalExtensions keys',
    (b) => {
      b.clinicalExtensions = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`extension${i}`, i]));
    },
  ],
  [
    'a questionnaire object',
    (b) => {
      b.questionnaire = { likertVersion: 'v0', items: [] };
    },
  ],
  [
    'an unknown top-level key (ignored)',
    (b) => {
      b.partnerNote = 'ignored';
    },
  ],
];

const rejected: Array<[string, Mutation, string]> = [
  [
    'a wrong schemaVersion',
    (b) => {
      b.schemaVersion = 'canonical_submission_v2';
    },
    'schemaVersion',
  ],
  [
    'a partnerId that is not a UUID',
    (b) => {
      b.partnerId = 'partner-1';
    },
    'partnerId',
  ],
  [
    'an empty partnerSubmissionId',
    (b) => {
      b.partnerSubmissionId = '';
    },
    'partnerSubmissionId',
  ],
  [
    'a partnerSubmissionId over 512 characters',
    (b) => {
      b.partnerSubmissionId = 'x'.repeat(513);
    },
    'partnerSubmissionId',
  ],
  [
    'an e-mail address as partnerSubjectId',
    (b) => {
      b.partnerSubjectId = 'jane.doe@example.com';
    },
    'partnerSubjectId',
  ],
  [
    'a record number as partnerSubjectId',
    (b) => {
      b.partnerSubjectId = 'MRN 00123456';
    },
    'partnerSubjectId',
  ],
  ['a missing subject', (b) => delete b.subject, 'subject'],
  [
    'an unknown sexAtBirth',
    (b) => {
      b.subject.demographics.sexAtBirth = 'unknown';
    },
    'subject.demographics.sexAtBirth',
  ],
  [
    'ageYears above 120',
    (b) => {
      b.subject.demographics.ageYears = 121;
    },
    'subject.demographics.ageYears',
  ],
  [
    'a fractional ageYears',
    (b) => {
      b.subject.demographics.ageYears = 54.5;
    },
    'subject.demographics.ageYears',
  ],
  [
    'neither ageYears nor birthYear',
    (b) => delete b.subject.demographics.ageYears,
    'subject.demographics.ageYears',
  ],
  [
    'birthYear before 1900',
    (b) => {
      delete b.subject.demographics.ageYears;
      b.subject.demographics.birthYear = 1899;
    },
    'subject.demographics.birthYear',
  ],
  [
    'educationYears above 40',
    (b) => {
      b.subject.demographics.educationYears = 41;
    },
    'subject.demographics.educationYears',
  ],
  [
    'weightKg above 300',
    (b) => {
      b.subject.measurements.weightKg = 300.5;
    },
    'subject.measurements.weightKg',
  ],
  [
    'heightCm above 250',
    (b) => {
      b.subject.measurements.heightCm = 251;
    },
    'subject.measurements.heightCm',
  ],
  [
    'an unknown overallHealth',
    (b) => {
      b.subject.history.overallHealth = 'great';
    },
    'subject.history.overallHealth',
  ],
  [
    'an unknown nested key',
    (b) => {
      b.subject.demographics.nickname = 'JD';
    },
    'subject.demographics.nickname',
  ],
  ['smoking without status', (b) => smoking(b, { pastFrequency: 'light' }), 'subject.history.smoking.status'],
  [
    'a former smoker without stopAge',
    (b) => smoking(b, { status: 'former', pastFrequency: 'light' }),
    'subject.history.smoking.stopAge',
  ],
  [
    'a former smoker with stopAge -1',
    (b) => smoking(b, { status: 'former', stopAge: -1 }),
    'subject.history.smoking.stopAge',
  ],
  [
    'a former smoker with currentFrequency',
    (b) => smoking(b, { status: 'former', stopAge: 40, currentFrequency: 'none' }),
    'subject.history.smoking.currentFrequency',
  ],
  [
    'a current smoker with stopAge',
    (b) => smoking(b, { status: 'current', currentCigsPerDay: 10, stopAge: 30 }),
    'subject.history.smoking.stopAge',
  ],
  [
    'a current smoker with pastFrequency',
    (b) => smoking(b, { status: 'current', currentCigsPerDay: 10, pastFrequency: 'light' }),
    'subject.history.smoking.pastFrequency',
  ],
  [
    'a current smoker with pastCigsPerDay',
    (b) => smoking(b, { status: 'current', currentCigsPerDay: 10, pastCigsPerDay: 5 }),
    'subject.history.smoking.pastCigsPerDay',
  ],
  [
    'a never smoker with pastCigsPerDay',
    (b) => smoking(b, { status: 'never', pastCigsPerDay: 3 }),
    'subject.history.smoking.pastCigsPerDay',
  ],
  [
    'prefer_not_to_say with more than status',
    (b) => smoking(b, { status: 'prefer_not_to_say', pastFrequency: 'light' }),
    'subject.history.smoking.pastFrequency',
  ],
  [
    'startAge outside a heavy branch',
    (b) => smoking(b, { status: 'former', pastFrequency: 'light', stopAge: 40, startAge: 18 }),
    'subject.history.smoking.startAge',
  ],
  [
    'currentCigsPerDay above 200',
    (b) => smoking(b, { status: 'current', currentCigsPerDay: 201 }),
    'subject.history.smoking.currentCigsPerDay',
  ],
  [
    'a medications object without takesRegularMedication',
    (b) => {
      b.subject.history.medications = {};
    },
    'subject.history.medications.takesRegularMedication',
  ],
  [
    'a deceased father without deathAge',
    (b) => {
      b.subject.familyHistory.father = { aliveStatus: 'deceased', conditions: [] };
    },
    'subject.familyHistory.father.deathAge',
  ],
  [
    'an alive mother with a deathAge',
    (b) => {
      b.subject.familyHistory.mother = { aliveStatus: 'alive', currentAge: 80, deathAge: 70 };
    },
    'subject.familyHistory.mother.deathAge',
  ],
  [
    'an alive mother without currentAge',
    (b) => {
      b.subject.familyHistory.mother = { aliveStatus: 'alive' };
    },
    'subject.familyHistory.mother.currentAge',
  ],
  [
    'an unknown family condition',
    (b) => {
      b.subject.familyHistory.father.conditions = ['flu'];
    },
    'subject.familyHistory.father.conditions[0]',
  ],
  [
    'the legacy markers object',
    (b) => {
      b.markers = { healthQuestionnaireMarkers: [], bloodMarkers: [] };
    },
    'markers',
  ],
  [
    'the legacy requestedAssessments',
    (b) => {
      b.requestedAssessments = ['cardiovascular'];
    },
    'requestedAssessments',
  ],
  [
    'no markers and no documents',
    (b) => {
      b.markers = [];
    },
    'markers',
  ],
  [
    'a marker value that is a string',
    (b) => {
      b.markers[0].value = '44.1';
    },
    'markers[0].value',
  ],
  [
    'an unknown key on a marker',
    (b) => {
      b.markers[0].flag = 'H';
    },
    'markers[0].flag',
  ],
  [
    'no requestedOutputs',
    (b) => {
      b.options.requestedOutputs = [];
    },
    'options.requestedOutputs',
  ],
  [
    'an unknown requested output',
    (b) => {
      b.options.requestedOutputs = ['xml'];
    },
    'options.requestedOutputs[0]',
  ],
  [
    'an unknown outcome',
    (b) => {
      b.options.requestedOutcomes = ['wellbeing.happiness'];
    },
    'options.requestedOutcomes[0]',
  ],
  [
    'more than 8 outcomes',
    (b) => {
      b.options.requestedOutcomes = Array.from({ length: 9 }, () => 'wellbeing.renal');
    },
    'options.requestedOutcomes',
  ],
  [
    '65 clinicalExtensions keys',
    (b) => {
      b.clinicalExtensions = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`extension${i}`, i]));
    },
    'clinicalExtensions',
  ],
  [
    'a clinicalExtensions key naming an identifier',
    (b) => {
      b.clinicalExtensions = { patientEmail: 'x' };
    },
    'clinicalExtensions.patientEmail',
  ],
  [
    'a document summary with a phone number',
    (b) => {
      b.reportDocuments = [
        {
          documentType: 'letter',
          effectiveAt: '2026-11-20T09:30:00Z',
          summaryText: 'Call +44 20 7946 0958 to book.',
        },
      ];
    },
    'reportDocuments[0].summaryText',
  ],
  [
    'a display string instead of a marker range',
    (b) => {
      b.sourceMetadata.markerRanges = { ALT: '3-500 U/L' };
    },
    'sourceMetadata.markerRanges.ALT',
  ],
];

const panelRejected: Array<[string, Mutation, (b: Body) => string]> = [
  ['13 markers', (b) => b.markers.pop(), () => 'markers'],
  ['15 markers', (b) => b.markers.push({ code: 'ALT', value: 20, unit: 'U/L' }), () => 'markers'],
  [
    'an unknown marker code',
    (b) => {
      b.markers[1].code = 'TSH';
    },
    () => 'markers[1].code',
  ],
  [
    'a duplicate through an alias',
    (b) => {
      b.markers[0].code = 'CA';
      b.markers[0].unit = 'mmol/L';
      b.markers[0].value = 2.3;
    },
    (b) => `markers[${Math.max(0, markerIndex(b, 'CALCIUM'))}].code`,
  ],
  [
    'a wrong unit',
    (b) => {
      marker(b, 'ALT').unit = 'mmol/L';
    },
    (b) => `markers[${markerIndex(b, 'ALT')}].unit`,
  ],
  [
    'HBA1C sent in percent',
    (b) => {
      const m = marker(b, 'HBA1C_MMOL_MOL');
      m.code = 'HBA1C';
      m.unit = '%';
      m.value = 5.6;
    },
    (b) => `markers[${markerIndex(b, 'HBA1C')}].unit`,
  ],
  [
    'a value above the default range',
    (b) => {
      marker(b, 'CRP').value = 81;
    },
    (b) => `markers[${markerIndex(b, 'CRP')}].value`,
  ],
  [
    'a value of -1',
    (b) => {
      marker(b, 'GGT').value = -1;
    },
    (b) => `markers[${markerIndex(b, 'GGT')}].value`,
  ],
  [
    'markerRanges narrowing below a value',
    (b) => {
      b.sourceMetadata.markerRanges = { ALT: { unit: 'U/L', lowerBound: 5, upperBound: 20 } };
    },
    (b) => `markers[${markerIndex(b, 'ALT')}].value`,
  ],
  [
    'markerRanges with an unknown code',
    (b) => {
      b.sourceMetadata.markerRanges = { TSH: { unit: 'mU/L', lowerBound: 0.4, upperBound: 4 } };
    },
    () => 'sourceMetadata.markerRanges.TSH',
  ],
  [
    'markerRanges with the wrong unit',
    (b) => {
      b.sourceMetadata.markerRanges = { ALT: { unit: 'mmol/L', lowerBound: 3, upperBound: 500 } };
    },
    () => 'sourceMetadata.markerRanges.ALT.unit',
  ],
  [
    'markerRanges with lowerBound above upperBound',
    (b) => {
      b.sourceMetadata.markerRanges = { ALT: { unit: 'U/L', lowerBound: 50, upperBound: 10 } };
    },
    () => 'sourceMetadata.markerRanges.ALT',
  ],
];

describe('POST /v1/submissions validation', () => {
  it.each(accepted)('accepts %s', async (_name, mutate) => {
    const res = await postSubmission(ctx.service, bodyFor(ctx.account, mutate), {
      apiKey: ctx.account.apiKey,
    });
    expect(res.json).toMatchObject({ status: 'accepted' });
    expect(res.status).toBe(202);
  });

  it.each(rejected)('rejects %s with 400 VALIDATION_ERROR at its path', async (_name, mutate, path) => {
    const res = await postSubmission(ctx.service, bodyFor(ctx.account, mutate), {
      apiKey: ctx.account.apiKey,
    });
    expect(res.status).toBe(400);
    const error = errorOf(res.json);
    expect(error.code).toBe('VALIDATION_ERROR');
    const details = error.details as { formErrors: string[]; fieldErrors: Record<string, string[]> };
    expect(Object.keys(details.fieldErrors)).toContain(path);
    expect(details.fieldErrors[path]?.[0]).toMatch(/\w+/);
  });

  it.each(panelRejected)(
    'rejects %s with 400 SUBMISSION_VALIDATION_ERROR at its field',
    async (_name, mutate, pathOf) => {
      const body = bodyFor(ctx.account, mutate);
      const res = await postSubmission(ctx.service, body, { apiKey: ctx.account.apiKey });
      expect(res.status).toBe(400);
      const error = errorOf(res.json);
      expect(error.code).toBe('SUBMISSION_VALIDATION_ERROR');
      const details = error.details as Array<{ field: string; message: string }>;
      expect(details.map((d) => d.field)).toContain(pathOf(body));
      for (const d of details) expect(d.message).toMatch(/\w+/);
    },
  );

  it('rejects a body that is not an object with a formErrors line', async () => {
    const res = await postSubmission(ctx.service, [1, 2, 3], { apiKey: ctx.account.apiKey });
    expect(res.status).toBe(400);
    const details = errorOf(res.json).details as { formErrors: string[] };
    expect(details.formErrors.length).toBeGreaterThan(0);
  });

  it('rejects malformed JSON with VALIDATION_ERROR', async () => {
    const res = await postSubmission(ctx.service, null, {
      apiKey: ctx.account.apiKey,
      rawBody: '{"schemaVersion": ',
    });
    expect(res.status).toBe(400);
    expect(errorOf(res.json).code).toBe('VALIDATION_ERROR');
  });

  it('rejects a prototype-poisoning body with VALIDATION_ERROR', async () => {
    const res = await postSubmission(ctx.service, null, {
      apiKey: ctx.account.apiKey,
      rawBody: '{"__proto__": {"x": 1}}',
    });
    expect(res.status).toBe(400);
    expect(errorOf(res.json).code).toBe('VALIDATION_ERROR');
  });

  it('answers 415 for a non-JSON content type', async () => {
    const res = await postSubmission(ctx.service, null, {
      apiKey: ctx.account.apiKey,
      rawBody: 'schemaVersion=canonical_submission_v1',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(415);
    expect(errorOf(res.json).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 413 for a body over 1 MiB', async () => {
    const body = bodyFor(ctx.account, (b) => {
      b.padding = 'x'.repeat(1024 * 1024 + 10);
    });
    const res = await postSubmission(ctx.service, body, { apiKey: ctx.account.apiKey });
    expect(res.status).toBe(413);
    expect(errorOf(res.json).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it.each([
    ['x-correlation-id', { correlationId: null }],
    ['idempotency-key', { idempotencyKey: null }],
    ['x-correlation-id', { correlationId: '   ' }],
    ['idempotency-key', { idempotencyKey: '' }],
  ] as const)('requires the %s header', async (name, opts) => {
    const res = await postSubmission(ctx.service, bodyFor(ctx.account), {
      apiKey: ctx.account.apiKey,
      ...opts,
    });
    expect(res.status).toBe(400);
    const error = errorOf(res.json);
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(Object.keys((error.details as { fieldErrors: object }).fieldErrors)).toContain(`headers.${name}`);
    // The headline names the header, not the body's schema (issue 38).
    const header = name === 'x-correlation-id' ? 'X-Correlation-Id' : 'Idempotency-Key';
    expect(error.message).toBe(
      `The required header ${header} is missing or not valid: every submission carries X-Correlation-Id and Idempotency-Key (see details).`,
    );
  });

  it('names the missing headers beside the body’s schema, and both missing headers together', async () => {
    const both = await postSubmission(
      ctx.service,
      bodyFor(ctx.account, (b) => {
        b.subject.demographics.sexAtBirth = 'x';
      }),
      { apiKey: ctx.account.apiKey, correlationId: null },
    );
    expect(both.status).toBe(400);
    expect(errorOf(both.json).message).toBe(
      'The request does not match the submission schema, and the required header X-Correlation-Id is missing or not valid (see details).',
    );
    const twoHeaders = await postSubmission(ctx.service, bodyFor(ctx.account), {
      apiKey: ctx.account.apiKey,
      correlationId: null,
      idempotencyKey: null,
    });
    expect(errorOf(twoHeaders.json).message).toBe(
      'The required headers X-Correlation-Id and Idempotency-Key are missing or not valid: every submission carries X-Correlation-Id and Idempotency-Key (see details).',
    );
    const bodyOnly = await postSubmission(
      ctx.service,
      bodyFor(ctx.account, (b) => {
        b.subject.demographics.sexAtBirth = 'x';
      }),
      { apiKey: ctx.account.apiKey },
    );
    expect(errorOf(bodyOnly.json).message).toBe('The request does not match the submission schema.');
  });

  it('checks the schema before the partner id, and the partner id before the panel', async () => {
    const otherPartner = '11111111-2222-4333-8444-555555555555';
    const schemaAndPartner = await postSubmission(
      ctx.service,
      bodyFor(ctx.account, (b) => {
        b.partnerId = otherPartner;
        b.subject.demographics.sexAtBirth = 'x';
      }),
      { apiKey: ctx.account.apiKey },
    );
    expect(errorOf(schemaAndPartner.json).code).toBe('VALIDATION_ERROR');
    const partnerAndPanel = await postSubmission(
      ctx.service,
      bodyFor(ctx.account, (b) => {
        b.partnerId = otherPartner;
        b.markers.pop();
      }),
      { apiKey: ctx.account.apiKey },
    );
    expect(partnerAndPanel.status).toBe(403);
    expect(errorOf(partnerAndPanel.json).code).toBe('PARTNER_ID_MISMATCH');
  });

  it('echoes x-correlation-id and x-request-id in error bodies', async () => {
    const res = await postSubmission(
      ctx.service,
      bodyFor(ctx.account, (b) => delete b.subject),
      {
        apiKey: ctx.account.apiKey,
        correlationId: 'corr-echo-1',
        headers: { 'x-request-id': 'req-echo-1' },
      },
    );
    const error = errorOf(res.json) as { correlationId?: string; requestId: string };
    expect(error.correlationId).toBe('corr-echo-1');
    expect(error.requestId).toBe('req-echo-1');
    expect(res.headers.get('x-request-id')).toBe('req-echo-1');
  });

  it('never leaks a stack trace or internal detail in an error', async () => {
    const res = await postSubmission(
      ctx.service,
      bodyFor(ctx.account, (b) => delete b.options),
      { apiKey: ctx.account.apiKey },
    );
    expect(JSON.stringify(res.json)).not.toMatch(/at .*\.(ts|js):\d+|node_modules|ZodError/);
  });
});
