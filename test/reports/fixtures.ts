import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  MODEL_NAME,
  MODEL_VERSION,
  type ModelResult,
  type ScoredOutcome,
} from '../../src/domain/model/types.js';
import { checkPanel, type NormalisedSubmission, parseSubmission } from '../../src/domain/submission/index.js';
import { buildReport, type Report, type ReportInput } from '../../src/reports/index.js';

/**
 * A hand-built ModelResult (the shapes of src/domain/model/types.ts) and real normalised
 * submissions from examples/submission.json, for the report tests.
 */

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const NOW = new Date('2026-12-01T00:00:00Z');
export const GENERATED_AT = '2026-11-20T09:31:12.000Z';

type Json = Record<string, unknown>;

function example(): Json {
  return JSON.parse(readFileSync(path.join(ROOT, 'examples/submission.json'), 'utf8')) as Json;
}

export function normalise(body: Json): NormalisedSubmission {
  const parsed = parseSubmission(body, { now: NOW });
  if (!parsed.ok) throw new Error(`fixture does not parse: ${JSON.stringify(parsed.error)}`);
  const panel = checkPanel(parsed.value);
  if (!panel.ok) throw new Error(`fixture fails the panel: ${JSON.stringify(panel.details)}`);
  return panel.value;
}

/**
 * The example submission with a few values moved so that markers fall below (calcium),
 * within (albumin, HDL, …) and above (ALT, cholesterol, LDL, HbA1c) their intervals.
 */
export function markerSubmission(): NormalisedSubmission {
  const body = example();
  const markers = body.markers as Array<{ code: string; value: number }>;
  for (const m of markers) {
    if (m.code === 'CALCIUM') m.value = 2.05;
    if (m.code === 'ALT') m.value = 72;
    if (m.code === 'HBA1C_MMOL_MOL') m.value = 44;
  }
  return normalise(body);
}

/** A documents-only submission: no markers, one de-identified report document. */
export function documentsOnlySubmission(): NormalisedSubmission {
  const body = example();
  delete body.markers;
  body.reportDocuments = [
    {
      documentType: 'lab_report_summary',
      effectiveAt: '2026-11-18',
      summaryText: 'Routine check; no blood panel attached.',
    },
  ];
  return normalise(body);
}

function outcome(partial: Partial<ScoredOutcome> & Pick<ScoredOutcome, 'outcomeId'>): ScoredOutcome {
  return {
    status: 'completed',
    score: 0.5,
    placement: 'above_reference',
    tier: 'high',
    notices: [],
    subModelId: 'test-model',
    subModelLabel: 'Test model',
    risk: null,
    referenceRisk: null,
    riskKind: 'absolute',
    horizonYears: 10,
    inputsUsed: [],
    inputsImputed: [],
    contributions: [],
    explanation: [],
    equivalentAge: null,
    extras: [],
    ...partial,
  };
}

export const CARDIOVASCULAR = outcome({
  outcomeId: 'wellbeing.cardiovascular',
  score: 0.412,
  placement: 'below_reference',
  tier: 'medium',
  notices: ['Blood pressure is not collected, so a typical value for your age and sex was used.'],
  subModelId: 'framingham-2008-lipid',
  subModelLabel:
    'Framingham 2008 general cardiovascular risk, lipid model (D’Agostino et al., Circulation 2008)',
  risk: 0.0712,
  referenceRisk: 0.0498,
  riskKind: 'absolute',
  horizonYears: 10,
  inputsUsed: ['Age', 'Sex', 'Total cholesterol', 'HDL cholesterol', 'Smoking', 'Diabetes'],
  inputsImputed: ['Systolic blood pressure'],
  contributions: [
    { factor: 'chol', label: 'Total cholesterol', logHazardDifference: 0.21, direction: 'unfavourable' },
    { factor: 'smoking', label: 'Smoking', logHazardDifference: 0.12, direction: 'unfavourable' },
    { factor: 'hdl', label: 'HDL cholesterol', logHazardDifference: -0.18, direction: 'favourable' },
  ],
  explanation: [
    'Your total cholesterol is above the target and accounts for most of the difference.',
    'Your past smoking adds to the difference.',
    'Your HDL cholesterol is above the target and works in your favour.',
  ],
  equivalentAge: { label: 'Heart age', years: 61 },
});

export const COGNITIVE = outcome({
  outcomeId: 'wellbeing.cognitive',
  status: 'partial',
  score: 0.563,
  placement: 'above_reference',
  tier: 'high',
  notices: [
    'Some items this estimate uses (deprivation, depression, hypertension, living alone) are not collected and were counted as absent.',
    'Stroke history was taken from the reported heart and circulation conditions.',
  ],
  subModelId: 'ukbdrs',
  subModelLabel: 'UK Biobank Dementia Risk Score (Anatürk et al., 2023)',
  risk: 0.0108,
  referenceRisk: 0.0139,
  horizonYears: 10,
  explanation: [
    'Your years of education work in your favour.',
    "Your mother's history of dementia adds to your estimated risk.",
  ],
  equivalentAge: { label: 'Dementia-risk age', years: 51.6 },
});

export const RENAL = outcome({
  outcomeId: 'wellbeing.renal',
  status: 'failed',
  score: 0,
  placement: 'indeterminate',
  tier: 'unknown',
  notices: ['Kidney health cannot be estimated without a cystatin C result.'],
  subModelId: 'ckd-pc-incident',
  subModelLabel: 'CKD Prognosis Consortium incident CKD equations (Nelson et al., JAMA 2019)',
  riskKind: 'relative',
  horizonYears: 5,
});

export const RESPIRATORY = outcome({
  outcomeId: 'wellbeing.respiratory',
  score: 0.25,
  placement: 'below_reference',
  tier: 'low',
  notices: ['An existing condition in this area was reported, so this score is not a forecast.'],
  subModelId: 'kotz-2014-copd',
  subModelLabel: 'Kotz et al. 2014 COPD risk model, with PLCOm2012 for lung cancer',
  risk: 1.84,
  referenceRisk: 1,
  riskKind: 'relative',
  horizonYears: 10,
  explanation: ['Your past smoking accounts for most of the difference.'],
  extras: [{ label: 'Lung cancer risk over 6 years', value: 0.62, unit: '%', note: 'PLCOm2012' }],
});

export function modelResult(
  outcomes: ScoredOutcome[] = [CARDIOVASCULAR, COGNITIVE, RENAL, RESPIRATORY],
): ModelResult {
  return {
    model: { name: MODEL_NAME, version: MODEL_VERSION },
    ageYears: 54,
    derived: [
      { key: 'ageYears', label: 'Age', value: 54, unit: 'years', provenance: 'reported', note: null },
      {
        key: 'bmi',
        label: 'Body mass index',
        value: 25.16,
        unit: 'kg/m²',
        provenance: 'computed',
        note: 'Overweight',
      },
      {
        key: 'egfrCys',
        label: 'Kidney filtration (eGFR, cystatin C)',
        value: 72.4713,
        unit: 'mL/min/1.73 m²',
        provenance: 'computed',
        note: 'G2: mildly decreased',
      },
      {
        key: 'hba1cPercent',
        label: 'HbA1c (NGSP)',
        value: 6.177,
        unit: '%',
        provenance: 'computed',
        note: null,
      },
      { key: 'diabetes', label: 'Diabetes', value: false, unit: null, provenance: 'reported', note: null },
      {
        key: 'ethnicGroup',
        label: 'Ethnic group used by the models',
        value: 'White, American Indian or Alaska Native, other or not stated',
        unit: null,
        provenance: 'computed',
        note: null,
      },
      { key: 'packYears', label: 'Pack-years', value: 6.5, unit: null, provenance: 'computed', note: null },
      {
        key: 'sbp',
        label: 'Systolic blood pressure',
        value: 128.3,
        unit: 'mmHg',
        provenance: 'assumed',
        note: 'Typical value for your age and sex; blood pressure is not collected.',
      },
      {
        key: 'smokingStatus',
        label: 'Smoking',
        value: 'Former smoker',
        unit: null,
        provenance: 'reported',
        note: null,
      },
    ],
    outcomes,
  };
}

export function input(submission: NormalisedSubmission, result: ModelResult = modelResult()): ReportInput {
  return {
    resultId: '0192f3a0-7c1e-7a2b-9c3d-4e5f60718293',
    submissionId: '0192f39f-1b2c-7d3e-8f40-5a6b7c8d9e0f',
    partnerSubmissionId: submission.partnerSubmissionId,
    partnerSubjectId: submission.partnerSubjectId,
    generatedAt: GENERATED_AT,
    submission,
    result,
  };
}

/** The main fixture report: four outcomes, markers below/within/above. */
export function fullReport(): Report {
  return buildReport(input(markerSubmission()));
}

/** The documents-only report: no markers. */
export function documentsOnlyReport(): Report {
  const partial = (o: ScoredOutcome): ScoredOutcome => ({
    ...o,
    status: o.status === 'failed' ? 'failed' : 'partial',
    notices: [
      ...o.notices,
      'No blood results were sent, so this was estimated from the questionnaire alone.',
    ],
  });
  return buildReport(
    input(documentsOnlySubmission(), modelResult([CARDIOVASCULAR, COGNITIVE, RENAL].map(partial))),
  );
}

/** Cut to at most `max` UTF-16 units (the schema's measure) without splitting a character. */
function upTo(max: number, text: string): string {
  let out = '';
  for (const { segment } of new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text)) {
    if (out.length + segment.length > max) break;
    out += segment;
  }
  return out;
}

/**
 * Partner text a report must survive: each case fills partnerSubjectId and partnerSubmissionId
 * up to the schema's 512 characters (and the laboratory name, up to its 200).
 */
export const HOSTILE_TEXT: Readonly<Record<string, string>> = {
  'a 512-character reference': `ps-${'0123456789abcdef'.repeat(32)}`.slice(0, 512),
  'one unbroken 512-letter word': upTo(512, 'Pneumonoultramicroscopicsilicovolcanoconiosis'.repeat(12)),
  'right-to-left text with bidi controls': upTo(
    512,
    'مرحبا بالعالم שלום עולם \u202Eevil\u202C \u200Fמספר 12345 \u2067isolated\u2069 '.repeat(8),
  ),
  'Chinese, Japanese and Korean': upTo(512, '患者参照番号 漢字かなカナ 한국어 참조 '.repeat(20)),
  'emoji: sequences, skin tones, flags': upTo(512, '👩🏽‍⚕️🧬🩸 test 🇩🇪🏳️‍🌈 1️⃣ '.repeat(20)),
  'combining marks': upTo(512, 'Ze\u0301ro n\u0303 a\u0308\u0301\u0323 Z̸̢̛̭̤̙͎̈́̽̈́a̵̛͍̦̓l̷g̶o '.repeat(12)),
  'zero-width and invisible characters': upTo(
    512,
    'a\u200Bb\u200Cc\u200Dd\uFEFFe\u2060f\u00ADg\u180Eh\u2063i '.repeat(30),
  ),
  'markup and script': upTo(
    512,
    '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">&amp;&lt;"\' '.repeat(8),
  ),
  'PDF syntax characters': upTo(
    512,
    ') Tj ET (x) \\) \\\\ ( % %%EOF endobj trailer << /Type /Catalog >> \\n '.repeat(10),
  ),
};

/** The full report with `text` as both partner references and as the laboratory's name. */
export function reportWithPartnerText(text: string): Report {
  const report = buildReport({
    ...input(markerSubmission()),
    partnerSubjectId: text,
    partnerSubmissionId: text,
  });
  report.source.labName = upTo(200, text);
  return report;
}
