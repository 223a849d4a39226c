import { KDIGO_STAGE_LABELS, type KdigoStage } from '../derived/egfr.js';
import { hba1cPercent } from '../derived/hba1c.js';
import type { ModelInputs } from '../inputs.js';
import { REFERENCE } from '../reference.js';
import { relativeScore } from '../scoring/score.js';
import {
  CKDPC_DIABETES,
  CKDPC_NO_DIABETES,
  type CkdpcCoefficients,
  type CkdpcInput,
  type CkdpcTerms,
  ckdpcLinearPredictor,
  ckdpcTerms,
} from '../submodels/ckdpc.js';
import { fixed, roundTo } from '../text/format.js';
import { NOTICES } from '../text/notices.js';
import { bmiNotice, factor, pushNotice, smokingClause } from './common.js';
import { baseEstimate, type Estimate, type FactorEffect } from './estimate.js';
import { INPUT_LABELS as L } from './labels.js';

/** model-v1 §7: below eGFR 60 the score is set by the KDIGO stage. */
const STAGE_SCORES: Readonly<Record<Exclude<KdigoStage, 'G1' | 'G2'>, number>> = {
  G3a: 0.35,
  G3b: 0.2,
  G4: 0.1,
  G5: 0.05,
};

/** model-v1 §3 caps: eGFR < 45 → low, 45–59 → medium. */
const LOW_CAP_BELOW = 45;
const MEDIUM_CAP_BELOW = 60;

const LABELS = {
  noDiabetes:
    'CKD Prognosis Consortium incident chronic kidney disease equation, no-diabetes model, as a relative hazard (Nelson et al., JAMA 2019), with eGFR from cystatin C (CKD-EPI 2012)',
  diabetes:
    'CKD Prognosis Consortium incident chronic kidney disease equation, diabetes model, as a relative hazard (Nelson et al., JAMA 2019), with eGFR from cystatin C (CKD-EPI 2012)',
  stage: 'Kidney function stage (KDIGO 2012) from cystatin C eGFR (CKD-EPI 2012)',
} as const;

function egfrCap(egfr: number): Estimate['tierCap'] {
  if (egfr < LOW_CAP_BELOW) return { cap: 'low', notice: NOTICES.renalCap(egfr, 'below 45') };
  if (egfr < MEDIUM_CAP_BELOW) return { cap: 'medium', notice: NOTICES.renalCap(egfr, 'between 45 and 59') };
  return null;
}

function stageEstimate(est: Estimate, egfr: number, stage: Exclude<KdigoStage, 'G1' | 'G2'>): void {
  est.score = STAGE_SCORES[stage];
  est.alwaysBelowReference = true;
  est.notices.push(NOTICES.renalBelow60);
  est.inputsUsed.push(L.age, L.sex, L.cystatinC, L.egfr);
  est.tierCap = egfrCap(egfr);
}

/** The person's CKD-PC terms and the reference person's, in the same model. */
function ckdpcPair(inputs: ModelInputs, coefficients: CkdpcCoefficients, egfr: number) {
  const personInput: CkdpcInput = {
    sex: inputs.sex,
    ageYears: inputs.age.value,
    black: inputs.ethnicGroup === 'black',
    egfr,
    cvdHistory: inputs.conditions.cardioCerebrovascular,
    everSmoker: inputs.smoking.ever,
    hypertension: false,
    bmi: inputs.bmi.value,
    hba1cPercent: hba1cPercent(inputs.hba1c?.mmolPerMol ?? REFERENCE.hba1cMmolMol),
  };
  const person = ckdpcTerms(coefficients, personInput);
  const ref = ckdpcTerms(coefficients, {
    sex: inputs.sex,
    ageYears: inputs.age.value,
    black: personInput.black,
    hypertension: false,
    egfr: REFERENCE.egfr,
    cvdHistory: false,
    everSmoker: false,
    bmi: REFERENCE.bmi,
    hba1cPercent: hba1cPercent(REFERENCE.hba1cMmolMol),
  });
  return { person, ref };
}

/** Each factor's difference from the reference, HbA1c only in the diabetes model. */
function ckdpcFactors(
  inputs: ModelInputs,
  egfr: number,
  person: CkdpcTerms,
  ref: CkdpcTerms,
  diabetic: boolean,
): FactorEffect[] {
  const egfrDiff = person.egfr - ref.egfr;
  const bmiDiff = person.bmi - ref.bmi;
  const factors = [
    factor(
      'egfr',
      L.egfr,
      egfrDiff,
      () =>
        `Your kidney filtering rate (${fixed(egfr, 0)}, from cystatin C) is ${egfrDiff > 0 ? 'below' : 'above'} the reference of ${REFERENCE.egfr}`,
    ),
    factor(
      'bmi',
      L.bmi,
      bmiDiff,
      () =>
        `Your body mass index (${fixed(inputs.bmi.value, 1)}) is ${bmiDiff > 0 ? 'above' : 'below'} the reference of ${REFERENCE.bmi}`,
    ),
    factor('smoking', L.smoking, person.smoking - ref.smoking, () => smokingClause(inputs)),
    factor(
      'cardiovascularHistory',
      L.cardiovascularHistory,
      person.cvdHistory - ref.cvdHistory,
      () => 'The heart or circulation condition you reported raises the estimate',
    ),
  ];
  if (diabetic) {
    const hba1cDiff = person.hba1c - ref.hba1c;
    const ifcc = inputs.hba1c?.mmolPerMol ?? REFERENCE.hba1cMmolMol;
    factors.push(
      factor(
        'hba1c',
        L.hba1c,
        hba1cDiff,
        () =>
          `Your HbA1c (${fixed(ifcc, 0)} mmol/mol) is ${hba1cDiff > 0 ? 'above' : 'below'} the reference of ${REFERENCE.hba1cMmolMol} mmol/mol`,
      ),
    );
  }
  return factors;
}

/** What the equation used, what it had to assume, and the notices that say so. */
function ckdpcInputs(est: Estimate, inputs: ModelInputs, diabetic: boolean): void {
  est.inputsUsed.push(
    L.age,
    L.sex,
    L.ethnicity,
    L.cystatinC,
    L.egfr,
    L.cardiovascularHistory,
    L.smoking,
    L.bmi,
  );
  if (diabetic) est.inputsUsed.push(L.hba1c);
  est.inputsImputed.push(L.hypertension, L.urineAlbumin);
  if (diabetic) est.inputsImputed.push(L.diabetesMedication);
  if (inputs.bmi.provenance === 'assumed') est.inputsImputed.push(L.bmi);
  pushNotice(est.notices, bmiNotice(inputs));
  const items = ['high blood pressure', 'urine albumin'];
  if (diabetic) items.push('diabetes medication');
  est.notices.push(NOTICES.notCollected(items, ''));
}

function ckdpcEstimate(est: Estimate, inputs: ModelInputs, egfr: number): void {
  const diabetic = inputs.diabetes.value;
  const coefficients = diabetic ? CKDPC_DIABETES : CKDPC_NO_DIABETES;
  const { person, ref } = ckdpcPair(inputs, coefficients, egfr);
  const hazardRatio = Math.exp(ckdpcLinearPredictor(person) - ckdpcLinearPredictor(ref));

  est.horizonYears = 5;
  est.risk = hazardRatio;
  est.referenceRisk = 1;
  est.score = relativeScore(1, hazardRatio);
  est.hasSmokingTerm = true;
  est.factors.push(...ckdpcFactors(inputs, egfr, person, ref, diabetic));
  ckdpcInputs(est, inputs, diabetic);
}

/**
 * Renal (model-v1 §2, §7): eGFRcys and its KDIGO stage; at eGFR ≥ 60 the CKD-PC relative hazard
 * (the diabetes model when the person has diabetes, with the reference evaluated in the same
 * model); below 60 a score by stage. Needs cystatin C.
 */
export function estimateRenal(inputs: ModelInputs): Estimate {
  const diabetic = inputs.diabetes.value;
  const est = baseEstimate(diabetic ? 'ckdpc-2019-diabetes' : 'ckdpc-2019-no-diabetes', LABELS.noDiabetes);
  if (diabetic) est.subModelLabel = LABELS.diabetes;
  est.existingCondition = inputs.conditions.kidneyDisease ? 'kidney disease' : null;
  const egfr = inputs.egfr;
  if (egfr === null) {
    est.failureNotice = NOTICES.renalNeedsCystatin;
    if (inputs.markers === null) est.notices.push(NOTICES.documentsOnly);
    est.inputsUsed.push(L.cystatinC);
    return est;
  }
  if (egfr.stage === 'G1' || egfr.stage === 'G2') ckdpcEstimate(est, inputs, egfr.value);
  else {
    est.subModelId = 'kdigo-2012-stage';
    est.subModelLabel = LABELS.stage;
    stageEstimate(est, egfr.value, egfr.stage);
  }
  est.extras.push({
    label: 'Estimated kidney filtering rate (eGFR from cystatin C)',
    value: roundTo(egfr.value, 1),
    unit: 'mL/min/1.73 m²',
    note: KDIGO_STAGE_LABELS[egfr.stage],
  });
  return est;
}
