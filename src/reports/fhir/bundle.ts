import type {
  Bundle,
  BundleEntry,
  CodeableConcept,
  DiagnosticReport,
  Observation,
  ObservationReferenceRange,
  OperationOutcome,
  Patient,
  Quantity,
  Reference,
  Resource,
  RiskAssessment,
} from '@medplum/fhirtypes';
import { v5 as uuidv5 } from 'uuid';
import { INPUT_LABELS } from '../../domain/model/outcomes/labels.js';
import { OUTCOME_FOCUS, OUTCOME_STATUS_LABELS } from '../../domain/model/partner-view.js';
import type { ModelResult, ScoredOutcome, Tier } from '../../domain/model/types.js';
import { MARKERS, type MarkerCode } from '../../domain/submission/markers.js';
import type { NormalisedMarker, NormalisedSubmission } from '../../domain/submission/panel.js';
import { referenceInterval } from '../reference-intervals.js';
import {
  DATA_ABSENT_REASON,
  HEALTHSPAN,
  type LabCode,
  MARKER_LOINC,
  SMOKING_ANSWERS,
  SMOKING_STATUS_LOINC,
  SYSTEMS,
  VITALS,
} from './codes.js';

/** What a FHIR document is built from: the stored submission and result, as for the reports. */
export interface FhirInput {
  resultId: string;
  /** The credential the submission came with: the subject identifier's namespace. */
  partnerId: string;
  partnerSubjectId: string;
  /** When the submission was received: the document's time, so it never changes. */
  receivedAt: string;
  submission: NormalisedSubmission;
  result: ModelResult;
}

/** The risk words of FHIR's risk-probability code system, from our wellbeing tiers (inverted). */
const QUALITATIVE_RISK: Readonly<Partial<Record<Tier, { code: string; display: string }>>> = {
  high: { code: 'low', display: 'Low likelihood' },
  medium: { code: 'moderate', display: 'Moderate likelihood' },
  low: { code: 'high', display: 'High likelihood' },
};

/** Which inputs an outcome names (INPUT_LABELS) each observation stands for. */
const MARKER_INPUTS: Partial<Record<string, MarkerCode[]>> = {
  [INPUT_LABELS.totalCholesterol]: ['CHOL'],
  [INPUT_LABELS.hdl]: ['HDL'],
  [INPUT_LABELS.hba1c]: ['HBA1C_MMOL_MOL'],
  [INPUT_LABELS.cystatinC]: ['CYSTATIN_C'],
  [INPUT_LABELS.egfr]: ['CYSTATIN_C'],
};
/** Markers some input names; the biological-age method's "other blood markers" are the rest. */
const MAPPED_MARKERS = new Set<MarkerCode>(Object.values(MARKER_INPUTS).flat() as MarkerCode[]);
const SMOKING_INPUTS = new Set<string>([
  INPUT_LABELS.smoking,
  INPUT_LABELS.smokingIntensity,
  INPUT_LABELS.smokingDuration,
  INPUT_LABELS.yearsSinceQuitting,
]);

const quantity = (value: number, unit: LabCode): Quantity => ({
  value,
  unit: unit.ucum,
  system: SYSTEMS.ucum,
  code: unit.ucum,
});

const loincConcept = (code: { loinc: string; display: string }, text = code.display): CodeableConcept => ({
  coding: [{ system: SYSTEMS.loinc, code: code.loinc, display: code.display }],
  text,
});

const category = (
  code: 'laboratory' | 'vital-signs' | 'social-history',
  display: string,
): CodeableConcept[] => [{ coding: [{ system: SYSTEMS.observationCategory, code, display }] }];

/**
 * A FHIR R4 `collection` Bundle of one result (docs/fhir.md): the subject as a Patient with
 * only its de-identified identifier, sex and birth year; each blood marker and each questionnaire
 * answer with a standard code as an Observation; a DiagnosticReport grouping the markers; each
 * scored outcome as a RiskAssessment. Pure: the same result always gives the same document, ids
 * included (name-based UUIDs under the result id).
 */
export function buildFhirBundle(input: FhirInput): Bundle {
  const { submission: sub, result } = input;
  const idOf = (name: string) => uuidv5(`fhir:${name}`, input.resultId);
  const entries: BundleEntry[] = [];
  const add = <T extends Resource>(name: string, resource: T): Reference<T> => {
    const id = idOf(name);
    const fullUrl = `urn:uuid:${id}`;
    entries.push({ fullUrl, resource: { ...resource, id } });
    return { reference: fullUrl };
  };
  const sourceTime = sub.sourceMetadata?.sourceTimestamp;
  const answeredAt = sourceTime ?? input.receivedAt;

  const patient = add<Patient>('Patient', patientOf(input));

  const labRefs = new Map<MarkerCode, Reference<Observation>>();
  for (const marker of sub.markers) {
    labRefs.set(
      marker.code,
      add<Observation>(`Observation/${marker.code}`, labObservation(marker, input, patient)),
    );
  }

  const answers = questionnaireObservations(sub, result, patient, answeredAt);
  const answerRefs = new Map<string, Reference<Observation>>();
  for (const [name, observation] of answers)
    answerRefs.set(name, add<Observation>(`Observation/${name}`, observation));

  if (labRefs.size > 0) {
    add<DiagnosticReport>('DiagnosticReport', {
      resourceType: 'DiagnosticReport',
      status: 'final',
      category: [
        { coding: [{ system: SYSTEMS.diagnosticServiceSection, code: 'LAB', display: 'Laboratory' }] },
      ],
      code: { text: 'Blood panel (14 analytes)' },
      subject: patient,
      ...(sourceTime !== undefined ? { effectiveDateTime: sourceTime } : {}),
      issued: input.receivedAt,
      result: [...labRefs.values()],
    });
  }

  const omitted: ScoredOutcome[] = [];
  for (const outcome of result.outcomes) {
    if (outcome.status === 'failed') {
      omitted.push(outcome);
      continue;
    }
    add<RiskAssessment>(
      `RiskAssessment/${outcome.outcomeId}`,
      riskAssessment(outcome, result, patient, input.receivedAt, basisOf(outcome, labRefs, answerRefs)),
    );
  }
  if (omitted.length > 0) add<OperationOutcome>('OperationOutcome', omittedOutcomes(omitted));

  return {
    resourceType: 'Bundle',
    identifier: { system: SYSTEMS.rfc3986, value: `urn:uuid:${idOf('Bundle')}` },
    type: 'collection',
    timestamp: input.receivedAt,
    entry: entries,
  };
}

function patientOf(input: FhirInput): Patient {
  const demographics = input.submission.subject.demographics;
  return {
    resourceType: 'Patient',
    identifier: [{ system: HEALTHSPAN.subjectSystem(input.partnerId), value: input.partnerSubjectId }],
    gender: demographics.sexAtBirth,
    ...(demographics.birthYear !== undefined ? { birthDate: String(demographics.birthYear) } : {}),
  };
}

function labObservation(
  marker: NormalisedMarker,
  input: FhirInput,
  subject: Reference<Patient>,
): Observation {
  const code = MARKER_LOINC[marker.code];
  const effective = marker.observedAt ?? input.submission.sourceMetadata?.sourceTimestamp;
  const range = referenceRange(marker.code, input);
  return {
    resourceType: 'Observation',
    status: 'final',
    category: category('laboratory', 'Laboratory'),
    code: loincConcept(code, MARKERS[marker.code].name),
    subject,
    ...(effective !== undefined ? { effectiveDateTime: effective } : {}),
    valueQuantity: quantity(marker.value, code),
    ...(range ? { referenceRange: [range] } : {}),
  };
}

/** The lab's own range when the partner sent one, else the report's interval, else none. */
function referenceRange(code: MarkerCode, input: FhirInput): ObservationReferenceRange | undefined {
  const unit = MARKER_LOINC[code];
  const sent = input.submission.sourceMetadata?.markerRanges?.[code];
  if (sent) {
    return {
      low: quantity(sent.lowerBound, unit),
      high: quantity(sent.upperBound, unit),
      text: 'Range sent with the panel (sourceMetadata.markerRanges)',
    };
  }
  const interval = referenceInterval(
    code,
    input.submission.subject.demographics.sexAtBirth,
    input.result.ageYears,
  );
  if (!interval) return undefined;
  return {
    ...(interval.lower !== null ? { low: quantity(interval.lower, unit) } : {}),
    ...(interval.upper !== null ? { high: quantity(interval.upper, unit) } : {}),
    ...(interval.appliesTo ? { appliesTo: [{ text: interval.appliesTo }] } : {}),
    text: `${interval.text} (${interval.source})`,
  };
}

/** Questionnaire answers that have a standard code; the others are left out of the document. */
function questionnaireObservations(
  sub: NormalisedSubmission,
  result: ModelResult,
  subject: Reference<Patient>,
  effectiveDateTime: string,
): Array<[string, Observation]> {
  const out: Array<[string, Observation]> = [];
  const vital = (code: LabCode, value: number): Observation => ({
    resourceType: 'Observation',
    status: 'final',
    category: category('vital-signs', 'Vital Signs'),
    code: loincConcept(code),
    subject,
    effectiveDateTime,
    valueQuantity: quantity(value, code),
  });
  const smoking = sub.subject.history?.smoking;
  if (smoking) {
    const answer = smokingAnswer(smoking.status, smoking.currentFrequency);
    out.push([
      'smoking-status',
      {
        resourceType: 'Observation',
        status: 'final',
        category: category('social-history', 'Social History'),
        code: loincConcept(SMOKING_STATUS_LOINC),
        subject,
        effectiveDateTime,
        valueCodeableConcept: { coding: [{ system: SYSTEMS.snomed, ...answer }], text: answer.display },
      },
    ]);
  }
  const measured = sub.subject.measurements;
  if (measured?.weightKg !== undefined) out.push(['body-weight', vital(VITALS.weight, measured.weightKg)]);
  if (measured?.heightCm !== undefined) out.push(['body-height', vital(VITALS.height, measured.heightCm)]);
  // The BMI the model used, only when it came from the sent height and weight (never an assumed one).
  const bmi = result.derived.find((d) => d.key === 'bmi');
  if (bmi && bmi.provenance !== 'assumed' && typeof bmi.value === 'number') {
    out.push(['bmi', vital(VITALS.bmi, bmi.value)]);
  }
  return out;
}

function smokingAnswer(
  status: string,
  currentFrequency: string | undefined,
): { code: string; display: string } {
  switch (status) {
    case 'never':
      return SMOKING_ANSWERS.never;
    case 'former':
      return SMOKING_ANSWERS.former;
    case 'current':
      // Intake wording: "most or all days" is heavy, "occasionally" is light.
      if (currentFrequency === 'heavy') return SMOKING_ANSWERS.everyDay;
      if (currentFrequency === 'light') return SMOKING_ANSWERS.someDays;
      return SMOKING_ANSWERS.current;
    default:
      return SMOKING_ANSWERS.unknown;
  }
}

/** The observations standing for the inputs the outcome used (imputed ones have none). */
function basisOf(
  outcome: ScoredOutcome,
  labs: ReadonlyMap<MarkerCode, Reference<Observation>>,
  answers: ReadonlyMap<string, Reference<Observation>>,
): Reference<Observation>[] {
  const imputed = new Set(outcome.inputsImputed);
  const refs = new Map<string, Reference<Observation>>();
  const take = (ref: Reference<Observation> | undefined) => {
    if (ref?.reference) refs.set(ref.reference, ref);
  };
  for (const input of outcome.inputsUsed) {
    if (imputed.has(input)) continue;
    for (const code of MARKER_INPUTS[input] ?? []) take(labs.get(code));
    if (SMOKING_INPUTS.has(input)) take(answers.get('smoking-status'));
    if (input === INPUT_LABELS.bmi) {
      take(answers.get('bmi'));
      take(answers.get('body-weight'));
      take(answers.get('body-height'));
    }
    // The biological-age method reads the rest of the panel.
    if (input === INPUT_LABELS.otherBloodMarkers) {
      for (const [code, ref] of labs) if (!MAPPED_MARKERS.has(code)) take(ref);
    }
  }
  return [...refs.values()];
}

function riskAssessment(
  outcome: ScoredOutcome,
  result: ModelResult,
  subject: Reference<Patient>,
  occurrenceDateTime: string,
  basis: Reference<Observation>[],
): RiskAssessment {
  const focus = OUTCOME_FOCUS[outcome.outcomeId];
  const qualitative = QUALITATIVE_RISK[outcome.tier];
  // No probability (a relative hazard, or none computable) is said as such: R4's ras-2 is
  // otherwise empty, which Medplum's validator counts as a failure.
  const noProbability = {
    probabilityRange: { extension: [{ url: DATA_ABSENT_REASON, valueCode: 'not-applicable' }] },
  };
  const probability =
    outcome.risk !== null && outcome.riskKind === 'absolute'
      ? { probabilityDecimal: outcome.risk }
      : {
          ...noProbability,
          ...(outcome.risk !== null ? { relativeRisk: outcome.risk } : {}),
        };
  return {
    resourceType: 'RiskAssessment',
    extension: [
      { url: HEALTHSPAN.wellbeingScore, valueDecimal: outcome.score },
      {
        url: HEALTHSPAN.referencePlacement,
        valueCoding: { system: HEALTHSPAN.placementSystem, code: outcome.placement },
      },
    ],
    status: 'final',
    method: {
      coding: [
        {
          system: HEALTHSPAN.model,
          code: outcome.subModelId,
          version: result.model.version,
          display: outcome.subModelLabel,
        },
      ],
      text: `${outcome.subModelLabel}; ${result.model.name} ${result.model.version}`,
    },
    code: { text: `${focus} wellbeing` },
    subject,
    occurrenceDateTime,
    ...(basis.length > 0 ? { basis } : {}),
    prediction: [
      {
        outcome: { text: focus },
        ...probability,
        ...(qualitative
          ? { qualitativeRisk: { coding: [{ system: SYSTEMS.riskProbability, ...qualitative }] } }
          : {}),
        ...(outcome.horizonYears !== null
          ? {
              whenRange: {
                low: { value: 0, unit: 'a', system: SYSTEMS.ucum, code: 'a' },
                high: { value: outcome.horizonYears, unit: 'a', system: SYSTEMS.ucum, code: 'a' },
              },
            }
          : {}),
      },
    ],
    ...(outcome.notices.length > 0 ? { note: outcome.notices.map((text) => ({ text })) } : {}),
  };
}

/** Outcomes that could not be scored: named, with their plain reasons, not as errors. */
function omittedOutcomes(outcomes: ScoredOutcome[]): OperationOutcome {
  return {
    resourceType: 'OperationOutcome',
    issue: outcomes.map((o) => ({
      severity: 'information',
      code: 'informational',
      details: { text: `${OUTCOME_FOCUS[o.outcomeId]}: ${OUTCOME_STATUS_LABELS.failed}` },
      ...(o.notices.length > 0 ? { diagnostics: o.notices.join(' ') } : {}),
    })),
  };
}
