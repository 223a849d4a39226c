import { cholesterolMgDl } from '../derived/lipids.js';
import type { ModelInputs } from '../inputs.js';
import { REFERENCE } from '../reference.js';
import { relativeScore, straddlesReference } from '../scoring/score.js';
import { clampAge } from '../submodels/age-range.js';
import {
  FRAMINGHAM_AGE_RANGE,
  FRAMINGHAM_BMI,
  FRAMINGHAM_LIPID,
  type FraminghamTerms,
  framinghamBmiTerms,
  framinghamLipidTerms,
  framinghamRisk,
  heartAge,
  sumTerms,
} from '../submodels/framingham.js';
import { imputedSbp, SBP_STRADDLE_MMHG } from '../submodels/sbp-imputation.js';
import { fixed, roundTo } from '../text/format.js';
import { NOTICES } from '../text/notices.js';
import { bmiNotice, diabetesClause, factor, pushNotice, smokingClause } from './common.js';
import { boundedEquivalentAge } from './equivalent-age.js';
import { baseEstimate, type Estimate, type FactorEffect } from './estimate.js';
import { INPUT_LABELS as L } from './labels.js';

/** model-v1 §3 tier caps on the 10-year risk (NHS/NICE usage, research §2.1.5). */
const HIGH_RISK = 0.2;
const MODERATE_RISK = 0.1;

const LIPID_LABEL =
  "Framingham general cardiovascular risk, laboratory version (D'Agostino et al., Circulation 2008), with blood pressure imputed for age and sex";
const BMI_LABEL =
  "Framingham general cardiovascular risk, body-mass-index version (D'Agostino et al., Circulation 2008), with blood pressure imputed for age and sex";

function lipidFactors(
  inputs: ModelInputs,
  person: FraminghamTerms,
  ref: FraminghamTerms,
  tc: number,
  hdl: number,
) {
  const refHdl = REFERENCE.hdlMmolL[inputs.sex];
  const tcDiff = person.totalCholesterol - ref.totalCholesterol;
  const hdlDiff = person.hdl - ref.hdl;
  return [
    factor(
      'totalCholesterol',
      L.totalCholesterol,
      tcDiff,
      () =>
        `Your total cholesterol (${fixed(tc, 1)} mmol/L) is ${tcDiff > 0 ? 'above' : 'below'} the reference of ${fixed(REFERENCE.totalCholesterolMmolL, 1)} mmol/L`,
    ),
    factor(
      'hdl',
      L.hdl,
      hdlDiff,
      () =>
        `Your HDL cholesterol (${fixed(hdl, 1)} mmol/L) is ${hdlDiff > 0 ? 'below' : 'above'} the target of ${fixed(refHdl, 1)} mmol/L`,
    ),
  ];
}

function bmiFactor(inputs: ModelInputs, person: FraminghamTerms, ref: FraminghamTerms): FactorEffect {
  const diff = person.bmi - ref.bmi;
  return factor(
    'bmi',
    L.bmi,
    diff,
    () =>
      `Your body mass index (${fixed(inputs.bmi.value, 1)}) is ${diff > 0 ? 'above' : 'below'} the reference of ${REFERENCE.bmi}`,
  );
}

/** A person's Framingham terms, the reference person's, and the model's coefficients. */
interface FraminghamFit {
  person: FraminghamTerms;
  ref: FraminghamTerms;
  coefficients: (typeof FRAMINGHAM_LIPID)['male'] | (typeof FRAMINGHAM_BMI)['male'];
}

/** The lipid model (total and HDL cholesterol present): its terms, factors and inputs used. */
function lipidModel(
  inputs: ModelInputs,
  est: Estimate,
  age: number,
  sbp: number,
  tc: number,
  hdl: number,
): FraminghamFit {
  const { sex } = inputs;
  // Object literals written out rather than spread (here and in bmiModel): this runs once per
  // submission and V8 builds spread objects through a slow generic path.
  const person = framinghamLipidTerms({
    sex,
    ageYears: age,
    sbp,
    bpTreated: false,
    totalCholesterolMgDl: cholesterolMgDl(tc),
    hdlMgDl: cholesterolMgDl(hdl),
    smoker: inputs.smoking.current,
    diabetes: inputs.diabetes.value,
  });
  const ref = framinghamLipidTerms({
    sex,
    ageYears: age,
    sbp,
    bpTreated: false,
    totalCholesterolMgDl: cholesterolMgDl(REFERENCE.totalCholesterolMmolL),
    hdlMgDl: cholesterolMgDl(REFERENCE.hdlMmolL[sex]),
    smoker: false,
    diabetes: false,
  });
  est.factors.push(...lipidFactors(inputs, person, ref, tc, hdl));
  est.inputsUsed.push(L.age, L.sex, L.totalCholesterol, L.hdl, L.smoking, L.diabetes);
  return { person, ref, coefficients: FRAMINGHAM_LIPID[sex] };
}

/** The BMI model (cholesterol missing): its terms, factor, inputs used and notices. */
function bmiModel(inputs: ModelInputs, est: Estimate, age: number, sbp: number): FraminghamFit {
  const { sex } = inputs;
  const person = framinghamBmiTerms({
    sex,
    ageYears: age,
    sbp,
    bpTreated: false,
    bmi: inputs.bmi.value,
    smoker: inputs.smoking.current,
    diabetes: inputs.diabetes.value,
  });
  const ref = framinghamBmiTerms({
    sex,
    ageYears: age,
    sbp,
    bpTreated: false,
    bmi: REFERENCE.bmi,
    smoker: false,
    diabetes: false,
  });
  est.factors.push(bmiFactor(inputs, person, ref));
  est.inputsUsed.push(L.age, L.sex, L.bmi, L.smoking, L.diabetes);
  est.notices.push(NOTICES.lipidsMissing);
  pushNotice(est.notices, bmiNotice(inputs));
  if (inputs.bmi.provenance === 'assumed') est.inputsImputed.push(L.bmi);
  return { person, ref, coefficients: FRAMINGHAM_BMI[sex] };
}

/** The 10-year risks, the score, the SBP straddle (model-v1 §3(a)) and the tier cap. */
function scoreRisk(est: Estimate, fit: FraminghamFit, personSum: number, sbp: number) {
  const { ref, coefficients } = fit;
  const risk = framinghamRisk(personSum, coefficients);
  const referenceRisk = framinghamRisk(sumTerms(ref), coefficients);
  // model-v1 §3(a): the person's score with the imputed SBP 15 mmHg either side, reference unchanged.
  const sbpShift = (delta: number) => coefficients.lnSbpUntreated * Math.log((sbp + delta) / sbp);
  const scoreAtSbp = (delta: number) =>
    relativeScore(referenceRisk, framinghamRisk(personSum + sbpShift(delta), coefficients));

  est.riskKind = 'absolute';
  est.horizonYears = 10;
  est.risk = risk;
  est.referenceRisk = referenceRisk;
  est.score = relativeScore(referenceRisk, risk);
  est.sbpStraddle = straddlesReference(scoreAtSbp(SBP_STRADDLE_MMHG), scoreAtSbp(-SBP_STRADDLE_MMHG));
  if (risk >= HIGH_RISK) est.tierCap = { cap: 'low', notice: NOTICES.cardiovascularCap(risk, '20% or more') };
  else if (risk >= MODERATE_RISK) {
    est.tierCap = { cap: 'medium', notice: NOTICES.cardiovascularCap(risk, 'between 10% and 20%') };
  }
  return { risk, referenceRisk };
}

/** The figures shown beside the score: both risks and the SBP assumed. */
function riskExtras(risk: number, referenceRisk: number, sbp: number): Estimate['extras'] {
  return [
    { label: '10-year cardiovascular risk', value: roundTo(risk * 100, 2), unit: '%', note: null },
    {
      label: '10-year risk of the reference person',
      value: roundTo(referenceRisk * 100, 2),
      unit: '%',
      note: null,
    },
    {
      label: 'Assumed systolic blood pressure',
      value: roundTo(sbp, 1),
      unit: 'mmHg',
      note: 'Typical for age and sex; not measured',
    },
  ];
}

/**
 * Cardiovascular (model-v1 §2): Framingham 2008, lipid model when total and HDL cholesterol are
 * present, else the BMI model; SBP imputed for age and sex, the same value in the reference.
 */
export function estimateCardiovascular(inputs: ModelInputs): Estimate {
  const age = clampAge(inputs.age.value, FRAMINGHAM_AGE_RANGE);
  const sbp = imputedSbp(inputs.sex, age);
  const tc = inputs.markers?.CHOL;
  const hdl = inputs.markers?.HDL;
  const lipid = tc !== undefined && hdl !== undefined;
  const est = baseEstimate(
    lipid ? 'framingham-2008-lipid' : 'framingham-2008-bmi',
    lipid ? LIPID_LABEL : BMI_LABEL,
  );
  const fit = lipid ? lipidModel(inputs, est, age, sbp, tc, hdl) : bmiModel(inputs, est, age, sbp);
  const { person, ref, coefficients } = fit;
  est.factors.push(
    factor('smoking', L.smoking, person.smoking - ref.smoking, () => smokingClause(inputs)),
    factor('diabetes', L.diabetes, person.diabetes - ref.diabetes, () => diabetesClause(inputs)),
  );
  est.inputsImputed.push(L.sbp, L.bpTreatment);

  const personSum = sumTerms(person);
  const { risk, referenceRisk } = scoreRisk(est, fit, personSum, sbp);
  est.hasSmokingTerm = true;
  est.fittedAgeRange = FRAMINGHAM_AGE_RANGE;
  est.existingCondition = inputs.conditions.cardioCerebrovascular
    ? 'a heart or circulation condition, including stroke'
    : null;
  est.partial = inputs.markers === null;
  if (est.partial) est.notices.unshift(NOTICES.documentsOnly);
  est.notices.push(NOTICES.sbpAssumed(sbp));
  est.equivalentAge = boundedEquivalentAge(
    'Heart age',
    inputs.age.value,
    heartAge(personSum, ref, coefficients.lnAge),
    FRAMINGHAM_AGE_RANGE,
  );
  est.extras.push(...riskExtras(risk, referenceRisk, sbp));
  return est;
}
