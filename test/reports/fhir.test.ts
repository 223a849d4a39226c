import { readFileSync } from 'node:fs';
import path from 'node:path';
import type {
  Bundle,
  DiagnosticReport,
  Observation,
  OperationOutcome,
  Patient,
  Resource,
  RiskAssessment,
} from '@medplum/fhirtypes';
import { describe, expect, it } from 'vitest';
import { MODEL_VERSION, scoreSubmission } from '../../src/domain/model/index.js';
import { MARKER_CODES } from '../../src/domain/submission/markers.js';
import type { NormalisedSubmission } from '../../src/domain/submission/panel.js';
import { buildFhirBundle, type FhirInput } from '../../src/reports/fhir/bundle.js';
import { MARKER_LOINC } from '../../src/reports/fhir/codes.js';
import { bundleErrors, fhirErrors } from './fhir-validator.js';
import { documentsOnlySubmission, NOW, normalise, ROOT } from './fixtures.js';

/**
 * The FHIR export of real model results (scoreSubmission on real normalised submissions),
 * every resource checked by a real R4 validator (Medplum's, with the R4 StructureDefinitions).
 */
type Json = Record<string, unknown>;
const RESULT_ID = '0193a0b2-6d1e-7c3a-9f00-5e1d2c3b4a59';
const PARTNER_ID = '0193a0b2-0000-7000-8000-000000000001';
const RECEIVED_AT = '2026-11-20T09:31:12.000Z';

function example(edit: (body: Json & { subject: Json }) => void = () => {}): NormalisedSubmission {
  const body = JSON.parse(readFileSync(path.join(ROOT, 'examples/submission.json'), 'utf8')) as Json & {
    subject: Json;
  };
  edit(body);
  return normalise(body);
}

function input(submission: NormalisedSubmission): FhirInput {
  return {
    resultId: RESULT_ID,
    partnerId: PARTNER_ID,
    partnerSubjectId: 'subj-9f8e7d',
    receivedAt: RECEIVED_AT,
    submission,
    result: scoreSubmission(submission, { now: NOW }),
  };
}

function resources<T extends Resource>(bundle: Bundle, type: T['resourceType']): T[] {
  return (bundle.entry ?? []).map((e) => e.resource).filter((r): r is T => r?.resourceType === type);
}

/** Every `reference` anywhere in the bundle names one of its entries. */
function danglingReferences(bundle: Bundle): string[] {
  const urls = new Set((bundle.entry ?? []).map((e) => e.fullUrl));
  const out: string[] = [];
  JSON.stringify(bundle, (key, value) => {
    if (key === 'reference' && typeof value === 'string' && !urls.has(value)) out.push(value);
    return value;
  });
  return out;
}

const demographics = (body: { subject: Json }) => body.subject.demographics as Json;
const conditions = (body: { subject: Json }) => (body.subject.history as { conditions: Json }).conditions;

/** A 15-year-old who never smoked (a former smoker's stop age would be older than 15). */
function under18(body: Json & { subject: Json }): void {
  demographics(body).ageYears = 15;
  (body.subject.history as Json).smoking = { status: 'never' };
}

const SCENARIOS: Array<[string, () => NormalisedSubmission]> = [
  ['a full panel', () => example()],
  [
    'a full panel with the lab’s ranges, a birth year and a daily smoker',
    () =>
      example((body) => {
        delete demographics(body).ageYears;
        demographics(body).birthYear = 1972;
        (body.subject.history as Json).smoking = {
          status: 'current',
          currentFrequency: 'heavy',
          startAge: 16,
        };
        body.sourceMetadata = {
          ...(body.sourceMetadata as Json),
          markerRanges: { URATE: { unit: 'umol/L', lowerBound: 150, upperBound: 420 } },
        };
      }),
  ],
  ['documents only', () => documentsOnlySubmission()],
  [
    'an existing condition',
    () =>
      example((body) => {
        conditions(body).hasCardioCerebrovascular = true;
      }),
  ],
  ['a person under 18 (every outcome fails)', () => example(under18)],
];

describe('FHIR export', () => {
  it.each(SCENARIOS)('gives a bundle the R4 validator finds no error in: %s', (_name, submission) => {
    const bundle = buildFhirBundle(input(submission()));
    expect(bundleErrors(bundle)).toEqual([]);
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'collection', timestamp: RECEIVED_AT });
    expect(danglingReferences(bundle)).toEqual([]);
    for (const entry of bundle.entry ?? []) {
      expect(entry.fullUrl).toBe(`urn:uuid:${entry.resource?.id}`);
    }
    expect(new Set(bundle.entry?.map((e) => e.fullUrl)).size).toBe(bundle.entry?.length);
  });

  it('can fail: the validator reports a resource that breaks R4', () => {
    const bundle = buildFhirBundle(input(example()));
    const observation = structuredClone(resources<Observation>(bundle, 'Observation')[0]!) as unknown as Json;
    delete observation.code;
    (observation.valueQuantity as Json).value = '5.1';
    const issues = fhirErrors(observation as unknown as Observation);
    expect(issues.length).toBeGreaterThan(0);
    expect(JSON.stringify(issues)).toMatch(/value/);
  });

  it('is the same document, byte for byte, every time', () => {
    const a = JSON.stringify(buildFhirBundle(input(example())));
    const b = JSON.stringify(buildFhirBundle(input(example())));
    expect(a).toBe(b);
    const other = JSON.stringify(
      buildFhirBundle({ ...input(example()), resultId: '0193a0b2-6d1e-7c3a-9f00-000000000000' }),
    );
    expect(other).not.toBe(a);
  });

  it('holds the subject as an identifier, sex and birth year only', () => {
    const [withAge] = resources<Patient>(buildFhirBundle(input(example())), 'Patient');
    expect(withAge).toEqual({
      resourceType: 'Patient',
      id: expect.any(String),
      identifier: [{ system: `urn:healthspan:partner:${PARTNER_ID}:subject`, value: 'subj-9f8e7d' }],
      gender: 'female',
    });
    const born = example((body) => {
      delete demographics(body).ageYears;
      demographics(body).birthYear = 1972;
    });
    expect(resources<Patient>(buildFhirBundle(input(born)), 'Patient')[0]?.birthDate).toBe('1972');
  });

  it('codes each marker with LOINC in our unit and UCUM, with the range sent or the report’s interval', () => {
    const submission = example((body) => {
      body.sourceMetadata = {
        ...(body.sourceMetadata as Json),
        markerRanges: { URATE: { unit: 'µmol/L', lowerBound: 150, upperBound: 420 } },
      };
    });
    const bundle = buildFhirBundle(input(submission));
    const labs = resources<Observation>(bundle, 'Observation').filter(
      (o) => o.category?.[0]?.coding?.[0]?.code === 'laboratory',
    );
    expect(labs.map((o) => o.code.coding?.[0]?.code)).toEqual(MARKER_CODES.map((c) => MARKER_LOINC[c].loinc));
    const byLoinc = new Map(labs.map((o) => [o.code.coding?.[0]?.code, o]));
    expect(byLoinc.get('59261-8')?.valueQuantity).toMatchObject({
      unit: 'mmol/mol',
      system: 'http://unitsofmeasure.org',
      code: 'mmol/mol',
    });
    const urate = byLoinc.get('14933-6')!;
    expect(urate.valueQuantity?.code).toBe('umol/L');
    expect(urate.referenceRange?.[0]).toMatchObject({ low: { value: 150 }, high: { value: 420 } });
    // Cholesterol: the report's one-sided NHS level (5.0 or lower); ALP has none.
    const chol = byLoinc.get('14647-2')!;
    expect(chol.referenceRange?.[0]?.low).toBeUndefined();
    expect(chol.referenceRange?.[0]?.high).toMatchObject({ value: 5, code: 'mmol/L' });
    expect(byLoinc.get('6768-6')?.referenceRange).toBeUndefined();
    for (const o of labs) {
      expect(o).toMatchObject({ status: 'final', effectiveDateTime: '2026-11-20T09:30:00Z' });
    }
    const [report] = resources<DiagnosticReport>(bundle, 'DiagnosticReport');
    expect(report?.result).toHaveLength(14);
    expect(report?.category?.[0]?.coding?.[0]).toMatchObject({ code: 'LAB' });
  });

  it('exports smoking status, weight, height and the computed BMI with standard codes', () => {
    const bundle = buildFhirBundle(input(example()));
    const answers = resources<Observation>(bundle, 'Observation').filter(
      (o) => o.category?.[0]?.coding?.[0]?.code !== 'laboratory',
    );
    expect(
      answers.map((o) => [
        o.code.coding?.[0]?.code,
        o.valueCodeableConcept?.coding?.[0]?.code ?? o.valueQuantity?.code,
      ]),
    ).toEqual([
      ['72166-2', '8517006'],
      ['29463-7', 'kg'],
      ['8302-2', 'cm'],
      ['39156-5', 'kg/m2'],
    ]);
    const bmi = answers.find((o) => o.code.coding?.[0]?.code === '39156-5');
    expect(bmi?.valueQuantity?.value).toBeCloseTo(68.5 / 1.65 ** 2, 1);
    // No measurements, no assumed BMI.
    const unmeasured = buildFhirBundle(input(example((body) => void delete body.subject.measurements)));
    const codes = resources<Observation>(unmeasured, 'Observation').map((o) => o.code.coding?.[0]?.code);
    expect(codes).not.toContain('39156-5');
    expect(codes).not.toContain('29463-7');
  });

  it('gives each scored outcome a RiskAssessment: model and version, probability over the horizon, inverted band, score extension, basis', () => {
    const result = input(example());
    const bundle = buildFhirBundle(result);
    const risks = resources<RiskAssessment>(bundle, 'RiskAssessment');
    const scored = result.result.outcomes.filter((o) => o.status !== 'failed');
    expect(risks).toHaveLength(scored.length);
    // The example scores both kinds: absolute risks (heart, memory) and relative hazards.
    expect(new Set(scored.map((o) => o.riskKind))).toEqual(new Set(['absolute', 'relative']));
    const observations = new Map((bundle.entry ?? []).map((e) => [e.fullUrl, e.resource]));
    for (const [i, outcome] of scored.entries()) {
      const risk = risks[i]!;
      expect(risk.status).toBe('final');
      expect(risk.method?.coding?.[0]).toMatchObject({ code: outcome.subModelId, version: MODEL_VERSION });
      expect(risk.method?.text).toContain(`healthspan-wellbeing ${MODEL_VERSION}`);
      const prediction = risk.prediction?.[0];
      if (outcome.riskKind === 'absolute' && outcome.risk !== null) {
        expect(prediction?.probabilityDecimal).toBe(outcome.risk);
      } else {
        // A relative hazard: no probability, said so, and the hazard as the relative risk.
        expect(prediction?.probabilityDecimal).toBeUndefined();
        expect(prediction?.probabilityRange?.extension?.[0]).toMatchObject({ valueCode: 'not-applicable' });
        if (outcome.risk !== null) expect(prediction?.relativeRisk).toBe(outcome.risk);
      }
      if (outcome.horizonYears !== null) {
        expect(prediction?.whenRange?.high).toMatchObject({ value: outcome.horizonYears, code: 'a' });
      }
      const expected = { high: 'low', medium: 'moderate', low: 'high', unknown: undefined }[outcome.tier];
      expect(prediction?.qualitativeRisk?.coding?.[0]?.code).toBe(expected);
      expect(risk.extension).toContainEqual({
        url: 'urn:healthspan:fhir:extension:wellbeing-score',
        valueDecimal: outcome.score,
      });
      // An outcome whose inputs have no observation here (the dementia score reads education,
      // conditions and family history) has no basis.
      for (const ref of risk.basis ?? [])
        expect(observations.get(ref.reference)?.resourceType).toBe('Observation');
    }
    // Memory and thinking looks 10 years ahead from model 1.1: 0–10 years, the 10-year risk.
    const memory = risks.find((r) => r.code?.text?.startsWith('Memory'));
    const cognitive = scored.find((o) => o.outcomeId === 'wellbeing.cognitive')!;
    expect(memory?.prediction?.[0]?.whenRange).toMatchObject({ low: { value: 0 }, high: { value: 10 } });
    expect(memory?.prediction?.[0]?.probabilityDecimal).toBe(cognitive.risk);
    expect(cognitive.extras[0]).toMatchObject({ label: '10-year dementia risk' });
    expect(memory?.method?.text).toMatch(/10-year risk.*healthspan-wellbeing 1\.1\.0$/);
    // The cardiovascular model reads cholesterol, HDL and smoking: its basis names them.
    const cardio = risks.find((r) => r.code?.text?.startsWith('Heart'));
    const basisCodes = (cardio?.basis ?? []).map(
      (ref) => (observations.get(ref.reference) as Observation).code.coding?.[0]?.code,
    );
    expect(basisCodes).toEqual(expect.arrayContaining(['14647-2', '14646-4', '72166-2']));
  });

  it('leaves failed outcomes out and lists them in an OperationOutcome, not as an error', () => {
    const young = input(example(under18));
    const bundle = buildFhirBundle(young);
    expect(resources<RiskAssessment>(bundle, 'RiskAssessment')).toEqual([]);
    const [omitted] = resources<OperationOutcome>(bundle, 'OperationOutcome');
    expect(omitted?.issue).toHaveLength(young.result.outcomes.length);
    expect(omitted?.issue[0]).toMatchObject({ severity: 'information', code: 'informational' });
    expect(omitted?.issue[0]?.details?.text).toMatch(/Could not be estimated/);
    // A fully scored result has none.
    expect(resources<OperationOutcome>(buildFhirBundle(input(example())), 'OperationOutcome')).toEqual([]);
  });

  it('has no lab observations or report for documents only', () => {
    const bundle = buildFhirBundle(input(documentsOnlySubmission()));
    expect(resources<DiagnosticReport>(bundle, 'DiagnosticReport')).toEqual([]);
    expect(
      resources<Observation>(bundle, 'Observation').filter(
        (o) => o.category?.[0]?.coding?.[0]?.code === 'laboratory',
      ),
    ).toEqual([]);
  });
});
