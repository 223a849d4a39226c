import { z } from 'zod';
import { MARKER_CODES } from '../domain/submission/markers.js';
import { OUTCOME_IDS } from '../domain/submission/outcomes.js';

/**
 * The report model behind every artifact (json, html, pdf). This zod schema is the one
 * source of truth: the TypeScript type is inferred from it and docs/schemas/report.schema.json
 * is generated from it (see write-schema.ts).
 */

export const REPORT_SCHEMA_VERSION = 'healthspan_report_v1';

const text = z.string().min(1);

const interval = z
  .object({
    kind: z.enum(['reference_interval', 'target']).meta({
      description:
        'reference_interval: the typical range in healthy adults; target: a one-sided level recommended for long-term health.',
    }),
    lower: z.number().nullable().meta({ description: 'Lower bound, or null when the range has none.' }),
    upper: z.number().nullable().meta({ description: 'Upper bound, or null when the range has none.' }),
    lowerInclusive: z.boolean(),
    upperInclusive: z.boolean(),
    text: text.meta({ description: 'The range in words, e.g. "35–50" or "below 42".' }),
    appliesTo: text.meta({ description: 'Who the range is for, e.g. "Adult women".' }),
    source: text.meta({ description: 'Published source of the range.' }),
  })
  .meta({ id: 'ReportReferenceInterval' });

const marker = z
  .object({
    code: z.enum(MARKER_CODES),
    name: text,
    description: text.meta({ description: 'What the marker is, in plain language.' }),
    value: z.number().nullable().meta({ description: 'The submitted value; null when not measured.' }),
    unit: text,
    observedAt: z.string().nullable(),
    interval: interval.nullable().meta({ description: 'Null when no verified interval is published.' }),
    position: z.enum(['below', 'within', 'above', 'no_interval', 'not_measured']),
    positionLabel: text,
    comment: z.string().nullable().meta({ description: 'A further plain-language remark, when useful.' }),
  })
  .meta({ id: 'ReportMarker' });

const derived = z
  .object({
    key: text,
    label: text,
    value: z.union([z.number(), z.string(), z.boolean()]),
    displayValue: text.meta({ description: 'The value as shown in the report, with its unit.' }),
    unit: z.string().nullable(),
    provenance: z.enum(['measured', 'reported', 'computed', 'assumed']),
    provenanceLabel: text,
    note: z.string().nullable(),
  })
  .meta({ id: 'ReportDerivedItem' });

const outcome = z
  .object({
    outcomeId: z.enum(OUTCOME_IDS),
    focus: text.meta({ description: 'Human title of the area.' }),
    status: z.enum(['completed', 'partial', 'failed']),
    statusLabel: text,
    score: z
      .number()
      .min(0)
      .max(1)
      .meta({ description: '0..1; 0.5 equals the reference person; higher is more supportive.' }),
    scoreText: text.meta({ description: 'The score as shown, or "Not available" when the outcome failed.' }),
    placement: z.enum(['below_reference', 'above_reference', 'indeterminate']),
    placementLabel: text,
    band: z.object({ tier: z.enum(['low', 'medium', 'high', 'unknown']), label: text }),
    notices: z.array(text),
    explanation: z
      .array(text)
      .meta({ description: 'Plain-language sentences naming what moved the score most.' }),
    horizon: z.object({ years: z.number().nullable(), label: text }),
    risk: z.object({
      kind: z.enum(['absolute', 'relative']),
      person: z.number().nullable(),
      reference: z.number().nullable(),
      summary: z.string().nullable(),
    }),
    equivalentAge: z.object({ label: text, years: z.number() }).nullable(),
    extras: z.array(
      z.object({ label: text, value: z.number(), unit: z.string(), note: z.string().nullable() }),
    ),
    method: z.object({
      subModelId: text,
      subModelLabel: text,
      inputsUsed: z.array(text),
      inputsImputed: z.array(text),
    }),
  })
  .meta({ id: 'ReportOutcome' });

export const reportSchema = z
  .object({
    schemaVersion: z.literal(REPORT_SCHEMA_VERSION),
    title: text,
    resultId: z.uuid(),
    submissionId: z.uuid(),
    partnerSubmissionId: z.string().min(1).max(512),
    partnerSubjectId: z.string().min(1).max(512),
    generatedAt: z.iso.datetime({ offset: true }),
    model: z.object({ name: text, version: text }),
    statement: z
      .object({ heading: text, text })
      .meta({ description: 'The informational-not-diagnostic statement.' }),
    subject: z.object({
      ageYears: z.int().min(0).meta({ description: 'The age the model was evaluated at.' }),
      sexAtBirth: z.enum(['male', 'female']),
      sexAtBirthLabel: text,
    }),
    source: z.object({
      intakeCompletedAt: z.string().nullable(),
      labName: z.string().nullable(),
      documentCount: z.int().min(0),
    }),
    readingGuide: z.array(text).meta({ description: 'How to read the scores, in plain language.' }),
    outcomes: z.array(outcome),
    derived: z.object({ note: text, items: z.array(derived) }),
    markers: z.object({
      included: z.boolean().meta({ description: 'False when the submission carried no blood markers.' }),
      note: text,
      items: z.array(marker).length(MARKER_CODES.length),
    }),
  })
  .meta({
    title: 'healthspan wellbeing report',
    description: 'The content of the json, html and pdf report artifacts. Informational, not a diagnosis.',
  });

export type Report = z.infer<typeof reportSchema>;
export type ReportOutcome = Report['outcomes'][number];
export type ReportMarker = Report['markers']['items'][number];
export type ReportInterval = NonNullable<ReportMarker['interval']>;
export type ReportDerivedItem = Report['derived']['items'][number];
export type MarkerPosition = ReportMarker['position'];
