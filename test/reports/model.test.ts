import { describe, expect, it } from 'vitest';
import {
  OUTCOME_FOCUS,
  OUTCOME_STATUS_LABELS,
  PLACEMENT_LABELS,
  TIER_LABELS,
} from '../../src/domain/model/partner-view.js';
import { MARKER_CODES, MARKERS } from '../../src/domain/submission/markers.js';
import { buildReport, renderJson, reportSchema } from '../../src/reports/index.js';
import {
  CARDIOVASCULAR,
  documentsOnlyReport,
  fullReport,
  input,
  markerSubmission,
  modelResult,
} from './fixtures.js';

describe('buildReport', () => {
  const report = fullReport();

  it('produces a report the schema accepts', () => {
    expect(reportSchema.safeParse(report).success).toBe(true);
    expect(reportSchema.safeParse(documentsOnlyReport()).success).toBe(true);
  });

  it('carries ids, generatedAt, model name and version and the statement', () => {
    expect(report.resultId).toBe('0192f3a0-7c1e-7a2b-9c3d-4e5f60718293');
    expect(report.submissionId).toBe('0192f39f-1b2c-7d3e-8f40-5a6b7c8d9e0f');
    expect(report.partnerSubmissionId).toBe('sub-000123');
    expect(report.partnerSubjectId).toBe('subj-9f8e7d');
    expect(report.generatedAt).toBe('2026-11-20T09:31:12.000Z');
    expect(report.model).toEqual({ name: 'healthspan-wellbeing', version: '1.1.0' });
    expect(report.statement.text).toMatch(/not a diagnosis/);
    expect(report.subject).toEqual({ ageYears: 54, sexAtBirth: 'female', sexAtBirthLabel: 'Female' });
    expect(report.source).toEqual({
      intakeCompletedAt: '2026-11-20T09:30:00Z',
      labName: 'Example Lab',
      documentCount: 0,
    });
  });

  it('maps every outcome with the partner-facing labels, in model order', () => {
    expect(report.outcomes.map((o) => o.outcomeId)).toEqual([
      'wellbeing.cardiovascular',
      'wellbeing.cognitive',
      'wellbeing.renal',
      'wellbeing.respiratory',
    ]);
    for (const o of report.outcomes) {
      expect(o.focus).toBe(OUTCOME_FOCUS[o.outcomeId]);
      expect(o.statusLabel).toBe(OUTCOME_STATUS_LABELS[o.status]);
      expect(o.placementLabel).toBe(PLACEMENT_LABELS[o.placement]);
      expect(o.band.label).toBe(TIER_LABELS[o.band.tier]);
    }
    const [cv, cog, renal, resp] = report.outcomes;
    expect(cv).toMatchObject({
      score: 0.412,
      scoreText: '0.412',
      band: { tier: 'medium', label: 'Partly supportive' },
      horizon: { years: 10, label: 'Next 10 years' },
      equivalentAge: { label: 'Heart age', years: 61 },
      risk: { kind: 'absolute', summary: '7.1% chance over 10 years; reference person: 5%.' },
      method: { subModelId: 'framingham-2008-lipid', inputsImputed: ['Systolic blood pressure'] },
    });
    expect(cv?.explanation[0]).toMatch(/total cholesterol/);
    expect(cog).toMatchObject({ status: 'partial', statusLabel: 'Partly completed', horizon: { years: 10 } });
    expect(cog?.notices).toHaveLength(2);
    expect(renal).toMatchObject({
      status: 'failed',
      scoreText: 'Not available',
      band: { tier: 'unknown', label: 'Not available' },
      risk: { summary: null },
      horizon: { label: 'Next 5 years, relative to the reference person' },
    });
    expect(resp).toMatchObject({
      band: { tier: 'low' },
      risk: { kind: 'relative', summary: '1.84 times that of the reference person.' },
      extras: [{ label: 'Lung cancer risk over 6 years', value: 0.62, unit: '%', note: 'PLCOm2012' }],
    });
    expect(resp?.notices[0]).toMatch(/existing condition/);
  });

  it("leaves absolute risks to the model's own figures when it lists any", () => {
    const withExtras = {
      ...CARDIOVASCULAR,
      extras: [{ label: '10-year risk', value: 7.12, unit: '%', note: null }],
    };
    const [o] = buildReport(input(markerSubmission(), modelResult([withExtras]))).outcomes;
    expect(o?.risk).toEqual({ kind: 'absolute', person: 0.0712, reference: 0.0498, summary: null });
    expect(o?.extras[0]?.label).toBe('10-year risk');
  });

  it('says in words how each derived input was obtained', () => {
    const byKey = new Map(report.derived.items.map((d) => [d.key, d]));
    expect(byKey.get('egfrCys')).toMatchObject({
      displayValue: '72.5 mL/min/1.73 m²',
      provenance: 'computed',
      provenanceLabel: 'Calculated',
    });
    expect(byKey.get('sbp')).toMatchObject({ provenanceLabel: 'Assumed', displayValue: '128 mmHg' });
    expect(byKey.get('hba1cPercent')?.displayValue).toBe('6.18%');
    expect(byKey.get('diabetes')).toMatchObject({ displayValue: 'No', provenanceLabel: 'Reported' });
    expect(byKey.get('smokingStatus')?.displayValue).toBe('Former smoker');
    expect(report.derived.note).toMatch(/Measured.*Reported.*Calculated.*Assumed/s);
  });

  it('lists all 14 markers with value, unit, interval and position', () => {
    const items = report.markers.items;
    expect(report.markers.included).toBe(true);
    expect(items.map((m) => m.code)).toEqual([...MARKER_CODES]);
    for (const m of items) {
      expect(m.name).toBe(MARKERS[m.code].name);
      expect(m.description).toBe(MARKERS[m.code].description);
      expect(m.unit).toBe(MARKERS[m.code].unit);
      expect(m.value).toBeTypeOf('number');
    }
    const at = (code: string) => items.find((m) => m.code === code)!;
    expect(at('CALCIUM')).toMatchObject({
      value: 2.05,
      position: 'below',
      positionLabel: 'Below the typical range',
    });
    expect(at('ALBUMIN')).toMatchObject({
      position: 'within',
      interval: { text: '35–50', lower: 35, upper: 50 },
    });
    // Female intervals (research.md §1.7): ALT 8–41, so 72 is above.
    expect(at('ALT')).toMatchObject({
      position: 'above',
      interval: { text: '8–41', appliesTo: 'Adult women' },
    });
    expect(at('URATE').interval?.text).toBe('150–390');
    expect(at('CHOL')).toMatchObject({ position: 'above', positionLabel: 'Above the healthy level' });
    expect(at('HDL')).toMatchObject({ position: 'within', positionLabel: 'Meets the healthy level' });
    expect(at('LDL').position).toBe('above');
    expect(at('HBA1C_MMOL_MOL')).toMatchObject({ value: 44, position: 'above' });
    expect(at('HBA1C_MMOL_MOL').comment).toMatch(/prediabetes/);
    expect(at('CRP')).toMatchObject({ position: 'within' });
    expect(at('CRP').comment).toMatch(/average/);
    // Aged 54: the 50-and-over cystatin C interval.
    expect(at('CYSTATIN_C').interval?.text).toBe('0.58–1.02');
    // ALP's interval is [UNVERIFIED] in research.md §1.7, so none is shown.
    expect(at('ALP')).toMatchObject({ interval: null, position: 'no_interval' });
  });

  it('uses the male intervals for a male subject and the HbA1c boundary as "below 42"', () => {
    const sub = markerSubmission();
    sub.subject = { ...sub.subject, demographics: { ...sub.subject.demographics, sexAtBirth: 'male' } };
    sub.markers = sub.markers.map((m) => (m.code === 'HBA1C_MMOL_MOL' ? { ...m, value: 42 } : m));
    const male = buildReport(input(sub));
    const at = (code: string) => male.markers.items.find((m) => m.code === code)!;
    expect(at('ALT')).toMatchObject({
      position: 'above',
      interval: { text: '9–59', appliesTo: 'Adult men' },
    });
    expect(at('HBA1C_MMOL_MOL').position).toBe('above');
    expect(male.subject.sexAtBirthLabel).toBe('Male');
  });

  it('renders a documents-only submission with every marker "not measured"', () => {
    const docs = documentsOnlyReport();
    expect(docs.markers.included).toBe(false);
    expect(docs.markers.note).toMatch(/No blood test results/);
    expect(docs.markers.items).toHaveLength(14);
    for (const m of docs.markers.items) {
      expect(m.value).toBeNull();
      expect(m.position).toBe('not_measured');
    }
    expect(docs.source.documentCount).toBe(1);
    expect(docs.outcomes.map((o) => o.status)).toEqual(['partial', 'partial', 'failed']);
  });

  it('is pure: the same input gives the same report and the same json bytes', () => {
    const a = buildReport(input(markerSubmission()));
    const b = buildReport(input(markerSubmission()));
    expect(a).toEqual(b);
    expect(renderJson(a).equals(renderJson(b))).toBe(true);
  });
});
