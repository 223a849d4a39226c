import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ParsedSubmission,
  type ParseResult,
  parseSubmission,
  submissionRequestSchema,
} from '../../src/domain/submission/index.js';
import {
  describeIssue,
  flattenIssues,
  toValidationIssues,
} from '../../src/domain/submission/issue-messages.js';
import { isPlainObject } from '../../src/domain/submission/raw-values.js';
import { checkConditionalRules } from '../../src/domain/submission/submission-rules.js';
import { collectPaths } from '../helpers/json-paths.js';
import { build, example, NOW, UNSET } from './submission-fixture.js';

/**
 * parseSubmission answers valid bodies with zod's compiled parser (`z.compile`) and leaves the
 * rest to the runtime parser. These properties hold it to what the runtime parser alone answered.
 */

const KNOWN_TOP_LEVEL_KEYS = Object.keys(submissionRequestSchema.shape) as (keyof ParsedSubmission)[];

/** parseSubmission before the compiled parser: the runtime parser only. */
function runtimeParse(body: unknown, now: Date): ParseResult {
  if (!isPlainObject(body)) {
    return { ok: false, error: { formErrors: ['The request body must be a JSON object.'], fieldErrors: {} } };
  }
  const first = submissionRequestSchema.safeParse(body);
  const result = first.success ? first : submissionRequestSchema.safeParse(body, { error: describeIssue });
  const issues = result.success ? [] : toValidationIssues(result.error.issues);
  issues.push(...checkConditionalRules(body, now));
  if (!result.success || issues.length > 0) return { ok: false, error: flattenIssues(issues) };
  const value: Record<string, unknown> = {};
  for (const key of KNOWN_TOP_LEVEL_KEYS) {
    if (result.data[key] !== undefined) value[key] = result.data[key];
  }
  return { ok: true, value: value as ParsedSubmission };
}

const PATHS = [
  ...collectPaths(example()),
  'subject.demographics.birthYear',
  'subject.history.smoking.startAge',
  'subject.history.smoking.currentFrequency',
  'subject.familyHistory.father.currentAge',
  'subject.extra',
  'markers[0].observedAt',
  'markers[14]',
  'reportDocuments',
  'reportDocuments[0]',
  'reportDocuments[0].summaryText',
  'sourceMetadata.facilityId',
  'sourceMetadata.markerRanges',
  'sourceMetadata.markerRanges.ALB',
  'sourceMetadata.markerRanges.HDL.lowerBound',
  'questionnaire',
  'questionnaire.sleepHours',
  'questionnaire.firstName',
  'clinicalExtensions',
  'clinicalExtensions.visit',
  'clinicalExtensions.visit.email',
  'requestedAssessments',
  'unknownTopLevel',
];

/** Values near the edges of what the schema accepts, beside arbitrary JSON. */
const EDGES = [
  -1,
  -0,
  0,
  0.5,
  1,
  15,
  40,
  41,
  60,
  119,
  120,
  121,
  200,
  200.5,
  1900,
  1970,
  2100,
  2101,
  1e308,
  '',
  ' ',
  'x',
  'a'.repeat(64),
  'a'.repeat(65),
  'a'.repeat(513),
  '2026-11-20',
  '2026-02-30',
  '2026-11-20T09:30:00Z',
  '2026-11-20T09:30:00.123+01:00',
  '2026-11-20T09:30:00',
  'male',
  'former',
  'current',
  'never',
  'heavy',
  'unknown',
  'alive',
  'deceased',
  'good',
  'wellbeing.renal',
  'renal.wellbeing',
  'wellbeing.unknown',
  'json',
  'ALB',
  'HBA1C',
  'µmol/L',
  'canonical_submission_v1',
  '7B0C6A2E-3F4D-4F8E-9A61-2B1F0C9D8E7A',
  '00000000-0000-0000-0000-000000000000',
  'call 020 7946 0958',
  'john@example.com',
  true,
  false,
  null,
  [],
  {},
  ['dementia', 'dementia'],
  ['json', 'json'],
  [{ documentType: 'lab', effectiveAt: '2026-11-01', summaryText: 'Routine.' }],
  { unit: 'g/L', lowerBound: 1, upperBound: 2 },
  { unit: 'g/L', lowerBound: 3, upperBound: 2 },
  { status: 'never' },
  { firstName: 'x' },
];

const change = fc.tuple(
  fc.constantFrom(...PATHS),
  fc.oneof(fc.constantFrom(...EDGES), fc.jsonValue({ maxDepth: 2 }), fc.constant(UNSET)),
);

describe('the compiled submission parser', () => {
  it('answers every body as the runtime parser did: the same success, value and key order, or the same errors', () => {
    const compiled = z.compile(submissionRequestSchema);
    fc.assert(
      fc.property(fc.array(change, { maxLength: 3 }), (changes) => {
        const body = build(Object.fromEntries(changes));
        const expected = runtimeParse(body, NOW);
        const actual = parseSubmission(body, { now: NOW });
        expect(actual).toEqual(expected);
        expect(JSON.stringify(actual)).toBe(JSON.stringify(expected));
        const runtime = submissionRequestSchema.safeParse(body);
        const fast = compiled.safeParse(body);
        expect(fast.success).toBe(runtime.success);
        expect(JSON.stringify(fast.data)).toBe(JSON.stringify(runtime.data));
      }),
      { seed: 21, numRuns: 3000 },
    );
  });

  it('answers arbitrary JSON as the runtime parser did', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (body) => {
        expect(parseSubmission(body, { now: NOW })).toEqual(runtimeParse(body, NOW));
      }),
      { seed: 22, numRuns: 500 },
    );
  });
});
