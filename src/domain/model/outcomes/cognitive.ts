import type { ModelInputs } from '../inputs.js';
import { REFERENCE } from '../reference.js';
import { relativeScore } from '../scoring/score.js';
import { clampAge } from '../submodels/age-range.js';
import {
  dementiaRiskAge,
  UKBDRS_AGE_RANGE,
  type UkbdrsTerms,
  ukbdrsLinearPredictor,
  ukbdrsRisk10,
  ukbdrsRisk14,
  ukbdrsTerms,
} from '../submodels/ukbdrs.js';
import { fixed, roundTo } from '../text/format.js';
import { NOTICES } from '../text/notices.js';
import { diabetesClause, factor } from './common.js';
import { boundedEquivalentAge } from './equivalent-age.js';
import { baseEstimate, type Estimate, type FactorEffect } from './estimate.js';
import { INPUT_LABELS as L } from './labels.js';

/**
 * The calculator's "at risk" line (research §2.2.2): ≥ 5 % over 14 years. model-v1.1 keeps it on
 * the 14-year risk; it is not translated into a 10-year threshold nobody published.
 */
const AT_RISK_14 = 0.05;

const LABEL =
  'UK Biobank Dementia Risk Score, competing-risk version (Anatürk et al., BMJ Mental Health 2023), 10-year risk; ' +
  "the 10-year baseline is read from the authors' published model fit, not published by them, and its calibration is not reported";

/** model-v1 §7: not collected, set to 0, no laboratory proxy. */
const NOT_COLLECTED = [
  'area deprivation',
  'depression',
  'high blood pressure',
  'a high cholesterol diagnosis or treatment',
  'living alone',
];

interface CognitiveTerms {
  age: number;
  person: UkbdrsTerms;
  ref: UkbdrsTerms;
  personLp: number;
  referenceLp: number;
}

/** The person's terms and the reference's, who keeps age and sex (model-v1 §3). */
function cognitiveTerms(inputs: ModelInputs): CognitiveTerms {
  const age = clampAge(inputs.age.value, UKBDRS_AGE_RANGE);
  const person = ukbdrsTerms({
    sex: inputs.sex,
    ageYears: age,
    educationYears: inputs.education.value,
    parentalDementia: inputs.family.dementia,
    diabetes: inputs.diabetes.value,
    strokeTia: inputs.conditions.cardioCerebrovascular,
  });
  const ref = ukbdrsTerms({
    sex: inputs.sex,
    ageYears: age,
    educationYears: REFERENCE.educationYears,
    parentalDementia: false,
    diabetes: false,
    strokeTia: false,
  });
  return {
    age,
    person,
    ref,
    personLp: ukbdrsLinearPredictor(person),
    referenceLp: ukbdrsLinearPredictor(ref),
  };
}

function cognitiveFactors(inputs: ModelInputs, { person, ref }: CognitiveTerms): FactorEffect[] {
  const educationDiff = person.education - ref.education;
  return [
    factor(
      'parentalDementia',
      L.parentalDementia,
      person.parentalDementia - ref.parentalDementia,
      () => "A parent's history of dementia, which cannot be changed, raises the estimate",
    ),
    factor(
      'education',
      L.education,
      educationDiff,
      () =>
        `Your education (${fixed(inputs.education.value, 0)} years) is ${educationDiff > 0 ? 'less' : 'more'} than the average of 13.5 years`,
    ),
    factor('diabetes', 'Diabetes', person.diabetes - ref.diabetes, () => diabetesClause(inputs)),
    factor(
      'strokeTia',
      L.strokeProxy,
      person.strokeTia - ref.strokeTia,
      () => 'The heart or circulation condition you reported, counted as a past stroke, raises the estimate',
    ),
  ];
}

function cognitiveNotices(inputs: ModelInputs, partial: boolean): string[] {
  const notices: string[] = [];
  if (partial) notices.push(NOTICES.documentsOnly);
  notices.push(NOTICES.dementiaTenYearBaseline);
  if (inputs.conditions.cardioCerebrovascular) notices.push(NOTICES.strokeProxy);
  if (inputs.education.provenance === 'assumed') notices.push(NOTICES.educationAssumed);
  notices.push(
    NOTICES.notCollected(NOT_COLLECTED, ', so the estimate may be too low for someone who has any of them'),
  );
  return notices;
}

/**
 * Cognitive (model-v1 §2, model-v1.1 §1): UKBDRS over 10 years. The reference keeps age and sex;
 * education is at the centring value and parental history, diabetes and stroke are absent
 * (model-v1 §3). The band's cap stays on the published 14-year line.
 */
export function estimateCognitive(inputs: ModelInputs): Estimate {
  const terms = cognitiveTerms(inputs);
  const risk = ukbdrsRisk10(terms.personLp);
  const referenceRisk = ukbdrsRisk10(terms.referenceLp);
  const risk14 = ukbdrsRisk14(terms.personLp);

  const est = baseEstimate('ukbdrs-2023-crr', LABEL);
  est.riskKind = 'absolute';
  est.horizonYears = 10;
  est.risk = risk;
  est.referenceRisk = referenceRisk;
  est.score = relativeScore(referenceRisk, risk);
  est.fittedAgeRange = UKBDRS_AGE_RANGE;
  if (risk14 >= AT_RISK_14) est.tierCap = { cap: 'low', notice: NOTICES.dementiaCap(risk14) };
  est.existingCondition = inputs.conditions.dementia ? 'dementia' : null;
  est.partial = inputs.markers === null;
  est.factors.push(...cognitiveFactors(inputs, terms));
  est.inputsUsed.push(L.age, L.sex, L.education, L.parentalDementia, L.diabetes, L.strokeProxy);
  est.inputsImputed.push(
    L.deprivation,
    L.depression,
    L.hypertension,
    L.highCholesterolDiagnosis,
    L.livesAlone,
  );
  if (inputs.education.provenance === 'assumed') est.inputsImputed.push(L.education);
  est.notices.push(...cognitiveNotices(inputs, est.partial));
  est.equivalentAge = boundedEquivalentAge(
    'Dementia-risk age',
    inputs.age.value,
    dementiaRiskAge(terms.age, terms.personLp, terms.referenceLp),
    UKBDRS_AGE_RANGE,
  );
  est.extras.push(
    { label: '10-year dementia risk', value: roundTo(risk * 100, 2), unit: '%', note: null },
    {
      label: '10-year risk of the reference person',
      value: roundTo(referenceRisk * 100, 2),
      unit: '%',
      note: null,
    },
  );
  return est;
}
