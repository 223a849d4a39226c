import { z } from 'zod';
import { ALIVE_STATUSES, FAMILY_CONDITIONS } from './family-history-rules.js';
import { findDirectIdentifier, findIdentifierKeyPaths } from './identifiers.js';
import {
  between,
  describeIssue,
  type FlattenedErrors,
  fieldLabel,
  flattenIssues,
  type RuleParams,
  toValidationIssues,
} from './issue-messages.js';
import { markerTableMarkdown } from './marker-table.js';
import { MARKER_ALIASES, MARKER_CODES } from './markers.js';
import { normaliseOutcomeName, REQUESTED_OUTPUTS } from './outcomes.js';
import { isPlainObject } from './raw-values.js';
import { SMOKING_FREQUENCIES, SMOKING_STATUSES } from './smoking-rules.js';
import { checkConditionalRules } from './submission-rules.js';

/**
 * The canonical `canonical_submission_v1` request schema. It is also the
 * source of the served OpenAPI document, hence the ids and descriptions.
 * Conditional rules (smoking, family, ages, markers-or-documents) live in
 * submission-rules.ts and are described here in words only.
 */

export const SCHEMA_VERSION = 'canonical_submission_v1';
export const MAX_CLINICAL_EXTENSION_KEYS = 64;
export const MAX_REPORT_DOCUMENTS = 20;
export const MAX_REQUESTED_OUTCOMES = 8;

const rule = (params: RuleParams) => ({ params });

function intBetween(min: number, max: number) {
  const error = between(min, max);
  return z.int().min(min, { error }).max(max, { error });
}

function numberBetween(min: number, max: number) {
  const error = between(min, max);
  return z.number().min(min, { error }).max(max, { error });
}

/** Optional smoking/family numbers: 0..max, or -1 for "not applicable". */
function withSentinel(max: number, integer: boolean) {
  const base = integer ? z.int() : z.number();
  return base
    .refine((v) => v === -1 || (v >= 0 && v <= max), rule({ rule: 'sentinel-range', max, integer }))
    .meta({ anyOf: [{ const: -1 }, { minimum: 0, maximum: max }] });
}

const isoDateTime = z.iso.datetime({ offset: true });

const isoDateTimeOrDate = z.union([z.iso.datetime({ offset: true }), z.iso.date()], {
  error: (iss) =>
    iss.input === undefined
      ? undefined
      : `${fieldLabel(iss.path)} must be an ISO-8601 date-time with a time zone (for example 2026-11-20T09:30:00Z) or a date (2026-11-20)`,
});

function keyScan(maxKeys: number | null) {
  return (value: Record<string, unknown>, ctx: z.RefinementCtx<Record<string, unknown>>) => {
    if (maxKeys !== null) {
      const count = Object.keys(value).length;
      if (count > maxKeys)
        ctx.addIssue({ code: 'custom', ...rule({ rule: 'too-many-keys', max: maxKeys, count }) });
    }
    for (const path of findIdentifierKeyPaths(value)) {
      ctx.addIssue({ code: 'custom', path, ...rule({ rule: 'identifier-key' }) });
    }
  };
}

export const demographicsSchema = z
  .strictObject({
    sexAtBirth: z.enum(['male', 'female']).meta({ description: 'Sex recorded at birth.' }),
    ageYears: intBetween(0, 120)
      .optional()
      .meta({ description: 'Age in whole years at intake. ageYears or birthYear is required.' }),
    birthYear: intBetween(1900, 2100).optional().meta({
      description:
        'Year of birth, when the age is not sent. Must not be in the future and must imply an age of 0..120 at sourceMetadata.sourceTimestamp (or the time of the request); must agree with ageYears within 1 year when both are sent.',
    }),
    ethnicity: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .meta({ description: 'Free text, for example white_british.' }),
    educationYears: intBetween(0, 40).optional().meta({ description: 'Years of full-time education.' }),
  })
  .meta({ description: 'Demographics. ageYears or birthYear is required.' });

export const measurementsSchema = z
  .strictObject({
    weightKg: numberBetween(0, 300).optional().meta({ description: 'Body weight in kilograms.' }),
    heightCm: numberBetween(0, 250).optional().meta({ description: 'Height in centimetres.' }),
  })
  .meta({ description: 'Body measurements (recommended).' });

export const smokingHistorySchema = z
  .strictObject({
    status: z.enum(SMOKING_STATUSES).meta({ description: 'Required whenever smoking is sent.' }),
    pastFrequency: z.enum(SMOKING_FREQUENCIES).optional().meta({
      description: 'Former smokers only (most or all days = heavy, occasionally = light).',
    }),
    currentFrequency: z.enum(SMOKING_FREQUENCIES).optional().meta({
      description: 'Current smokers only. Never send it (not even none) for a former smoker.',
    }),
    currentCigsPerDay: withSentinel(200, false)
      .optional()
      .meta({ description: 'Current smokers only. 0..200, or -1 for not applicable.' }),
    pastCigsPerDay: withSentinel(200, false)
      .optional()
      .meta({ description: 'Former smokers only. 0..200, or -1 for not applicable.' }),
    stopAge: withSentinel(120, true)
      .optional()
      .meta({ description: 'Required for former smokers; omitted otherwise. Not above the subject age.' }),
    startAge: withSentinel(120, true).optional().meta({
      description:
        'Only for heavy smoking (current with currentFrequency heavy, or former with pastFrequency heavy). Not above stopAge or the subject age.',
    }),
  })
  .meta({
    id: 'SmokingHistory',
    description:
      'Smoking history. -1 on a number means not applicable and counts as absent. never and prefer_not_to_say: only status. current: currentCigsPerDay and/or a currentFrequency other than unknown. former: stopAge required.',
  });

const conditionsSchema = z
  .strictObject({
    hasDiabetes: z.boolean().optional(),
    hasDementia: z.boolean().optional(),
    hasCardioCerebrovascular: z.boolean().optional(),
    hasLungCancer: z.boolean().optional(),
    hasKidneyDisease: z.boolean().optional(),
  })
  .meta({ description: 'Diagnosed conditions of the subject (recommended).' });

const medicationsSchema = z
  .strictObject({ takesRegularMedication: z.boolean() })
  .meta({ description: 'Medication use; takesRegularMedication is required when this object is sent.' });

export const historySchema = z
  .strictObject({
    overallHealth: z.enum(['excellent', 'very_good', 'good', 'fair', 'poor', 'unknown']).optional(),
    smoking: smokingHistorySchema.optional(),
    conditions: conditionsSchema.optional(),
    medications: medicationsSchema.optional(),
  })
  .meta({ description: 'Health history.' });

export const parentHistorySchema = z
  .strictObject({
    aliveStatus: z.enum(ALIVE_STATUSES).optional().meta({ description: 'Absent is treated as unknown.' }),
    deathAge: withSentinel(120, true)
      .optional()
      .meta({ description: 'Required when deceased; omitted or -1 otherwise.' }),
    currentAge: withSentinel(120, true)
      .optional()
      .meta({ description: 'Required when alive; omitted or -1 otherwise.' }),
    conditions: z
      .array(z.enum(FAMILY_CONDITIONS))
      .optional()
      .meta({
        description:
          'Conditions of this parent: any set of the codes; duplicates are merged. A condition listed ' +
          'counts even beside none_known or unknown, which add nothing of their own.',
      }),
  })
  .meta({ id: 'ParentHistory', description: "One parent's history." });

const familyHistorySchema = z
  .strictObject({ father: parentHistorySchema.optional(), mother: parentHistorySchema.optional() })
  .meta({ description: 'Family history (recommended).' });

export const subjectSchema = z
  .strictObject({
    demographics: demographicsSchema,
    measurements: measurementsSchema.optional(),
    history: historySchema.optional(),
    familyHistory: familyHistorySchema.optional(),
  })
  .meta({
    id: 'Subject',
    description:
      'The de-identified subject. The partner integration sends demographics, measurements, history and familyHistory together.',
  });

export const markerSchema = z
  .strictObject({
    code: z
      .string()
      .min(1)
      .max(64)
      .meta({
        description: `A canonical marker code or an accepted alias (matched case-insensitively; spaces and hyphens read as underscores). Each code once; the unit must be the code's unit and the value within its default range unless sourceMetadata.markerRanges gives another.\n\n${markerTableMarkdown()}`,
        // Validation accepts any string and resolves aliases in the panel check; the description
        // names the canonical codes as an enum so generated clients can offer them.
        override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
          const { minLength, maxLength } = jsonSchema;
          delete jsonSchema.type;
          delete jsonSchema.minLength;
          delete jsonSchema.maxLength;
          jsonSchema.anyOf = [
            { type: 'string', enum: [...MARKER_CODES], title: 'MarkerCode', description: 'A canonical code' },
            {
              type: 'string',
              minLength,
              maxLength,
              description: `An accepted alias: ${Object.keys(MARKER_ALIASES).join(', ')}`,
            },
          ];
        },
      }),
    value: z.number().meta({
      description:
        'Finite number within the default range, or the sourceMetadata.markerRanges range. -1 is never valid.',
    }),
    unit: z
      .string()
      .min(1)
      .max(32)
      .meta({ description: 'Must equal the code’s unit (µ, μ and u compare equal).' }),
    observedAt: isoDateTimeOrDate
      .optional()
      .meta({ description: 'Defaults to sourceMetadata.sourceTimestamp.' }),
  })
  .meta({ id: 'Marker', description: 'One blood marker result.' });

export const reportDocumentSchema = z
  .strictObject({
    documentType: z.string().min(1).max(100),
    effectiveAt: isoDateTimeOrDate,
    summaryText: z
      .string()
      .min(1)
      .max(20000)
      .superRefine((text, ctx) => {
        const kind = findDirectIdentifier(text);
        if (kind !== null) ctx.addIssue({ code: 'custom', ...rule({ rule: 'identifier-in-text', kind }) });
      })
      .meta({ description: 'De-identified text: no names, record numbers or contact details.' }),
  })
  .meta({ id: 'ReportDocument', description: 'De-identified report metadata, an alternative to markers.' });

const LEGACY_MARKERS_MESSAGE =
  'The legacy markers object (healthQuestionnaireMarkers / bloodMarkers) is no longer accepted; send markers as a list of { code, value, unit } entries and questionnaire answers in subject.';

export const markerRangeSchema = z
  .strictObject(
    {
      unit: z.string().min(1).max(32),
      lowerBound: z.number(),
      upperBound: z.number(),
    },
    {
      error: (iss) =>
        iss.code === 'invalid_type' && typeof iss.input === 'string'
          ? `${fieldLabel(iss.path)} must be an object { unit, lowerBound, upperBound }, not a display string`
          : undefined,
    },
  )
  .meta({
    id: 'MarkerRange',
    description:
      'Laboratory reference range; the unit must match the code’s unit and lowerBound <= upperBound.',
  });

export const sourceMetadataSchema = z
  .strictObject({
    sourceTimestamp: isoDateTime.optional().meta({
      description:
        'When intake was completed (recommended). Default observedAt of markers and reference date for ages.',
    }),
    sourceSystem: z.string().min(1).max(200).optional(),
    labName: z.string().min(1).max(200).optional(),
    facilityId: z.string().min(1).max(200).optional(),
    markerRanges: z
      .record(z.string().min(1).max(64), markerRangeSchema)
      .optional()
      .meta({ description: 'Map from marker code (or alias) to the range its value is checked against.' }),
  })
  .meta({ id: 'SourceMetadata', description: 'Where and when the data came from (recommended).' });

export const submissionOptionsSchema = z
  .strictObject({
    requestedOutputs: z.array(z.enum(REQUESTED_OUTPUTS)).min(1).meta({
      description: 'At least one. json, html and pdf produce report artifacts. Duplicates are merged.',
    }),
    requestedOutcomes: z
      .array(
        z.string().refine((name) => normaliseOutcomeName(name) !== null, rule({ rule: 'unknown-outcome' })),
      )
      .max(MAX_REQUESTED_OUTCOMES)
      .optional()
      .meta({
        description:
          'At most 8 of wellbeing.cardiovascular, wellbeing.renal, wellbeing.cognitive, wellbeing.respiratory, wellbeing.general. wellbeing.kidney, renal.wellbeing and <area>_wellbeing_10y are normalised. Omitted or empty: cardiovascular, cognitive, renal and respiratory.',
      }),
  })
  .meta({ id: 'SubmissionOptions', description: 'Outputs and outcomes wanted.' });

export const submissionRequestSchema = z
  .looseObject({
    schemaVersion: z.literal(SCHEMA_VERSION).meta({ description: 'Exactly canonical_submission_v1.' }),
    partnerId: z
      .guid()
      .meta({ description: 'Must equal the id of the partner credential bound to the API key.' }),
    partnerSubmissionId: z
      .string()
      .min(1)
      .max(512)
      .meta({ description: "The partner's own unique reference." }),
    partnerSubjectId: z
      .string()
      .min(1)
      .max(512)
      .superRefine((ref, ctx) => {
        const kind = findDirectIdentifier(ref);
        if (kind !== null)
          ctx.addIssue({ code: 'custom', ...rule({ rule: 'identifier-in-reference', kind }) });
      })
      .meta({
        description: 'De-identified subject reference: no names, record numbers, e-mail or postal addresses.',
      }),
    subject: subjectSchema,
    markers: z
      .array(markerSchema, {
        error: (iss) =>
          iss.code === 'invalid_type' &&
          isPlainObject(iss.input) &&
          ('healthQuestionnaireMarkers' in iss.input || 'bloodMarkers' in iss.input)
            ? LEGACY_MARKERS_MESSAGE
            : undefined,
      })
      .optional()
      .meta({
        description: 'The 14-marker panel, one entry per code. Required unless reportDocuments is non-empty.',
      }),
    reportDocuments: z
      .array(reportDocumentSchema)
      .max(MAX_REPORT_DOCUMENTS)
      .optional()
      .meta({ description: 'At most 20. Alternative to markers: scored from the questionnaire alone.' }),
    options: submissionOptionsSchema,
    sourceMetadata: sourceMetadataSchema.optional(),
    questionnaire: z.record(z.string(), z.unknown()).superRefine(keyScan(null)).optional().meta({
      description:
        'Reserved for future wellbeing questionnaire data. Keys naming a direct identifier are rejected.',
    }),
    clinicalExtensions: z
      .record(z.string(), z.unknown())
      .superRefine(keyScan(MAX_CLINICAL_EXTENSION_KEYS))
      .optional()
      .meta({
        description:
          'Reserved key bag, at most 64 keys. Keys (at any depth) naming a direct identifier are rejected.',
        maxProperties: MAX_CLINICAL_EXTENSION_KEYS,
      }),
  })
  .meta({
    id: 'SubmissionRequest',
    description:
      'A canonical_submission_v1 submission. Unknown keys inside nested objects are rejected; unknown top-level keys are ignored. The legacy requestedAssessments field and markers.healthQuestionnaireMarkers / markers.bloodMarkers shape are rejected. At least one of markers or reportDocuments must be non-empty.',
  });

type WithoutIndexSignature<T> = {
  [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K];
};

/** A body that passed the schema and conditional rules; unknown top-level keys are dropped. */
export type ParsedSubmission = WithoutIndexSignature<z.output<typeof submissionRequestSchema>>;

/**
 * The same schema, compiled by zod into one generated function for the common case of a valid
 * body (`z.compile`): it returns the same output, and a body it refuses goes to the runtime
 * parser, so issues (their wording and order) come from the runtime alone.
 */
const compiledRequestSchema = z.compile(submissionRequestSchema);

const KNOWN_TOP_LEVEL_KEYS = Object.keys(submissionRequestSchema.shape) as (keyof ParsedSubmission)[];

export type ParseResult = { ok: true; value: ParsedSubmission } | { ok: false; error: FlattenedErrors };

/**
 * Validates a request body against the canonical schema and the conditional
 * rules, reporting every problem found. `now` is the reference date for
 * birth-year checks when the body carries no sourceMetadata.sourceTimestamp.
 */
export function parseSubmission(body: unknown, opts: { now: Date }): ParseResult {
  if (!isPlainObject(body)) {
    return { ok: false, error: { formErrors: ['The request body must be a JSON object.'], fieldErrors: {} } };
  }
  // A valid body never reaches the error map: the compiled parser answers it. One it refuses is
  // parsed by the runtime parser, with the error map that words every issue.
  const result = compiledRequestSchema.safeParse(body, { error: describeIssue });
  const issues = result.success ? [] : toValidationIssues(result.error.issues);
  issues.push(...checkConditionalRules(body, opts.now));
  if (!result.success || issues.length > 0) return { ok: false, error: flattenIssues(issues) };

  const value: Record<string, unknown> = {};
  for (const key of KNOWN_TOP_LEVEL_KEYS) {
    if (result.data[key] !== undefined) value[key] = result.data[key];
  }
  return { ok: true, value: value as ParsedSubmission };
}
