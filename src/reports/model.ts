import type { DerivedDisplayItem, ModelResult, ScoredOutcome } from '../domain/model/types.js';
import { MARKER_CODES, MARKERS, type MarkerCode } from '../domain/submission/markers.js';
import type { NormalisedMarker, NormalisedSubmission } from '../domain/submission/panel.js';
import { formatNumber, formatPercent, formatScore, horizonShort, withUnit } from './format.js';
import {
  OUTCOME_FOCUS,
  OUTCOME_STATUS_LABELS,
  PLACEMENT_LABELS,
  PROVENANCE_LABELS,
  SEX_LABELS,
  TIER_LABELS,
} from './labels.js';
import { markerComment, positionIn, positionLabel, referenceInterval } from './reference-intervals.js';
import {
  type MarkerPosition,
  REPORT_SCHEMA_VERSION,
  type Report,
  type ReportDerivedItem,
  type ReportMarker,
  type ReportOutcome,
} from './schema.js';

/**
 * The one report model every artifact is rendered from. Pure: the same input gives the same
 * report (generatedAt is an input, there is no clock).
 */

export interface ReportInput {
  resultId: string;
  submissionId: string;
  partnerSubmissionId: string;
  partnerSubjectId: string;
  generatedAt: string;
  submission: NormalisedSubmission;
  result: ModelResult;
}

export const REPORT_TITLE = 'Wellbeing report';

export const STATEMENT_HEADING = 'For information only, not a diagnosis';

/**
 * The statement names each area's own period (most look 10 years ahead, kidneys 5; a result
 * scored under model 1.0.0 keeps its 14 for memory), in the words the summary cards and each
 * area's "Time span" use.
 */
export function statementText(outcomes: readonly Pick<ReportOutcome, 'focus' | 'horizon'>[]): string {
  const spans = outcomes.map((o) => ({ focus: o.focus, span: horizonShort(o.horizon.years) }));
  const distinct = new Set(spans.map((s) => s.span));
  const period =
    distinct.size === 1
      ? ` over the ${spans[0]!.span.toLowerCase()}`
      : spans.length === 0
        ? ''
        : ` over the period stated for each area (${spans.map((s) => `${s.focus}: ${s.span.toLowerCase()}`).join('; ')})`;
  return (
    `This report describes how supportive your health profile is for everyday functioning${period}, ` +
    'compared with a reference person of your age and sex. It is informational and is not a diagnosis. ' +
    'It does not replace advice from a doctor or another qualified health professional: please talk to one ' +
    'about any result that concerns you.'
  );
}

export const READING_GUIDE: readonly string[] = [
  'Each score runs from 0 to 1. A score of 0.5 means your profile is as supportive as that of a reference ' +
    'person of your age and sex with healthy values and no family history; higher scores are more supportive.',
  'Bands: Supportive (0.5 or higher), Partly supportive (0.333 up to 0.5) and Less supportive (below 0.333). ' +
    'A band can also be lowered when an estimated risk reaches a published high level.',
  'Some results cannot be placed reliably against the reference, for example when an important input had ' +
    'to be assumed. The notes under each area say when and why.',
];

const DERIVED_NOTE =
  'Measured: from your blood test or body measurements. Reported: from your questionnaire answers. ' +
  'Calculated: worked out from other values. Assumed: not provided, so a standard value was used.';

const MARKERS_NOTE =
  'Ranges are typical published values for adults. Laboratories set their own ranges, so small differences ' +
  "from your laboratory's report are normal, and a value outside a range is not by itself a diagnosis.";

const NO_MARKERS_NOTE =
  'No blood test results were included with this submission, so none of the markers below was measured. ' +
  'Areas that need them were estimated from the questionnaire alone, or could not be estimated.';

function horizonLabel(o: ScoredOutcome): string {
  if (o.horizonYears === null) return 'No fixed period: a comparison with the reference person';
  const span = horizonShort(o.horizonYears);
  return o.riskKind === 'relative' ? `${span}, relative to the reference person` : span;
}

/**
 * One sentence comparing the person's risk with the reference person's. For absolute risks only
 * when the model lists no further figures: it states those risks among its extras itself.
 */
function riskSummary(o: ScoredOutcome): string | null {
  const { risk, referenceRisk } = o;
  if (risk === null || o.status === 'failed') return null;
  if (o.riskKind === 'absolute') {
    if (o.extras.length > 0) return null;
    const over = o.horizonYears === null ? '' : ` over ${formatNumber(o.horizonYears)} years`;
    const ref = referenceRisk === null ? '' : `; reference person: ${formatPercent(referenceRisk)}`;
    return `${formatPercent(risk)} chance${over}${ref}.`;
  }
  if (referenceRisk === null || referenceRisk <= 0) {
    return `${formatNumber(risk)} relative to the reference person.`;
  }
  // Shown under the label "Estimated risk": the sentence does not repeat it.
  return `${formatNumber(risk / referenceRisk)} times that of the reference person.`;
}

function buildOutcome(o: ScoredOutcome): ReportOutcome {
  return {
    outcomeId: o.outcomeId,
    focus: OUTCOME_FOCUS[o.outcomeId],
    status: o.status,
    statusLabel: OUTCOME_STATUS_LABELS[o.status],
    score: o.score,
    scoreText: o.status === 'failed' ? 'Not available' : formatScore(o.score),
    placement: o.placement,
    placementLabel: PLACEMENT_LABELS[o.placement],
    band: { tier: o.tier, label: TIER_LABELS[o.tier] },
    notices: [...o.notices],
    explanation: [...o.explanation],
    horizon: { years: o.horizonYears, label: horizonLabel(o) },
    risk: { kind: o.riskKind, person: o.risk, reference: o.referenceRisk, summary: riskSummary(o) },
    equivalentAge: o.equivalentAge === null ? null : { ...o.equivalentAge },
    extras: o.extras.map((e) => ({ label: e.label, value: e.value, unit: e.unit, note: e.note })),
    method: {
      subModelId: o.subModelId,
      subModelLabel: o.subModelLabel,
      inputsUsed: [...o.inputsUsed],
      inputsImputed: [...o.inputsImputed],
    },
  };
}

function displayValue(item: DerivedDisplayItem): string {
  const { value, unit } = item;
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') return withUnit(formatNumber(value), unit);
  return withUnit(value, unit);
}

function buildDerived(item: DerivedDisplayItem): ReportDerivedItem {
  return {
    key: item.key,
    label: item.label,
    value: item.value,
    displayValue: displayValue(item),
    unit: item.unit,
    provenance: item.provenance,
    provenanceLabel: PROVENANCE_LABELS[item.provenance],
    note: item.note,
  };
}

function buildMarker(
  code: MarkerCode,
  sent: NormalisedMarker | undefined,
  sex: 'male' | 'female',
  ageYears: number,
): ReportMarker {
  const def = MARKERS[code];
  const interval = referenceInterval(code, sex, ageYears);
  const value = sent?.value ?? null;
  let position: MarkerPosition;
  if (value === null) position = 'not_measured';
  else if (interval === null) position = 'no_interval';
  else position = positionIn(value, interval);
  return {
    code,
    name: def.name,
    description: def.description,
    value,
    unit: def.unit,
    observedAt: sent?.observedAt ?? null,
    interval,
    position,
    positionLabel: positionLabel(position, interval),
    comment: markerComment(code, value),
  };
}

export function buildReport(input: ReportInput): Report {
  const { submission, result } = input;
  const sex = submission.subject.demographics.sexAtBirth;
  const byCode = new Map<MarkerCode, NormalisedMarker>();
  for (const m of submission.markers) byCode.set(m.code, m);
  const outcomes = result.outcomes.map(buildOutcome);
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    title: REPORT_TITLE,
    resultId: input.resultId,
    submissionId: input.submissionId,
    partnerSubmissionId: input.partnerSubmissionId,
    partnerSubjectId: input.partnerSubjectId,
    generatedAt: input.generatedAt,
    model: { name: result.model.name, version: result.model.version },
    statement: { heading: STATEMENT_HEADING, text: statementText(outcomes) },
    subject: { ageYears: result.ageYears, sexAtBirth: sex, sexAtBirthLabel: SEX_LABELS[sex] },
    source: {
      intakeCompletedAt: submission.sourceMetadata?.sourceTimestamp ?? null,
      labName: submission.sourceMetadata?.labName ?? null,
      documentCount: submission.reportDocuments.length,
    },
    readingGuide: [...READING_GUIDE],
    outcomes,
    derived: { note: DERIVED_NOTE, items: result.derived.map(buildDerived) },
    markers: {
      included: submission.markers.length > 0,
      note: submission.markers.length > 0 ? MARKERS_NOTE : NO_MARKERS_NOTE,
      items: MARKER_CODES.map((code) => buildMarker(code, byCode.get(code), sex, result.ageYears)),
    },
  };
}
