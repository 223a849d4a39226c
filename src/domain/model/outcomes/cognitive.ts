import type { ModelInputs } from '../inputs.js';
import { REFERENCE } from '../reference.js';
import { relativeScore } from '../scoring/score.js';
import { clampAge } from '../submodels/age-range.js';
import {
  dementiaRiskAge,
  UKBDRS_AGE_RANGE,
  type UkbdrsInput,
  ukbdrsLinearPredictor,
  ukbdrsRisk14,
  ukbdrsTerms,
} from '../submodels/ukbdrs.js';
import { fixed, roundTo } from '../text/format.js';
import { NOTICES } from '../text/notices.js';
import { diabetesClause, factor } from './common.js';
import { boundedEquivalentAge } from './equivalent-age.js';
import { baseEstimate, type Estimate } from './estimate.js';
import { INPUT_LABELS as L } from './labels.js';

/** The calculator's "at risk" line (research §2.2.2): ≥ 5 % over 14 years. */
const AT_RISK = 0.05;

const LABEL =
  'UK Biobank Dementia Risk Score, competing-risk version (Anatürk et al., BMJ Mental Health 2023), 14-year risk';

/** model-v1 §7: not collected, set to 0, no laboratory proxy. */
const NOT_COLLECTED = [
  'area deprivation',
  'depression',
  'high blood pressure',
  'a high cholesterol diagnosis or treatment',
  'living alone',
];

/**
 * Cognitive (model-v1 §2): UKBDRS. The reference keeps age and sex; education is at the centring
 * value and parental history, diabetes and stroke are absent (model-v1 §3).
 */
export function estimateCognitive(inputs: ModelInputs): Estimate {
  const age = clampAge(inputs.age.value, UKBDRS_AGE_RANGE);
  const stroke = inputs.conditions.cardioCerebrovascular;
  const personInput: UkbdrsInput = {
    sex: inputs.sex,
    ageYears: age,
    educationYears: inputs.education.value,
    parentalDementia: inputs.family.dementia,
    diabetes: inputs.diabetes.value,
    strokeTia: stroke,
  };
  const person = ukbdrsTerms(personInput);
  const ref = ukbdrsTerms({
    sex: inputs.sex,
    ageYears: age,
    educationYears: REFERENCE.educationYears,
    parentalDementia: false,
    diabetes: false,
    strokeTia: false,
  });
  const personLp = ukbdrsLinearPredictor(person);
  const referenceLp = ukbdrsLinearPredictor(ref);
  const risk = ukbdrsRisk14(personLp);
  const referenceRisk = ukbdrsRisk14(referenceLp);

  const est = baseEstimate('ukbdrs-2023-crr', LABEL);
  est.riskKind = 'absolute';
  est.horizonYears = 14;
  est.risk = risk;
  est.referenceRisk = referenceRisk;
  est.score = relativeScore(referenceRisk, risk);
  est.fittedAgeRange = UKBDRS_AGE_RANGE;
  if (risk >= AT_RISK) est.tierCap = { cap: 'low', notice: NOTICES.dementiaCap(risk) };
  est.existingCondition = inputs.conditions.dementia ? 'dementia' : null;
  est.partial = inputs.markers === null;

  const educationDiff = person.education - ref.education;
  est.factors.push(
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
  );
  est.inputsUsed.push(L.age, L.sex, L.education, L.parentalDementia, L.diabetes, L.strokeProxy);
  est.inputsImputed.push(
    L.deprivation,
    L.depression,
    L.hypertension,
    L.highCholesterolDiagnosis,
    L.livesAlone,
  );
  if (inputs.education.provenance === 'assumed') est.inputsImputed.push(L.education);

  if (est.partial) est.notices.push(NOTICES.documentsOnly);
  est.notices.push(NOTICES.dementiaHorizon);
  if (stroke) est.notices.push(NOTICES.strokeProxy);
  if (inputs.education.provenance === 'assumed') est.notices.push(NOTICES.educationAssumed);
  est.notices.push(
    NOTICES.notCollected(NOT_COLLECTED, ', so the estimate may be too low for someone who has any of them'),
  );
  est.equivalentAge = boundedEquivalentAge(
    'Dementia-risk age',
    inputs.age.value,
    dementiaRiskAge(age, personLp, referenceLp),
    UKBDRS_AGE_RANGE,
  );
  est.extras.push(
    { label: '14-year dementia risk', value: roundTo(risk * 100, 2), unit: '%', note: null },
    {
      label: '14-year risk of the reference person',
      value: roundTo(referenceRisk * 100, 2),
      unit: '%',
      note: null,
    },
  );
  return est;
}
