import type { ModelInputs } from '../inputs.js';
import { relativeScore } from '../scoring/score.js';
import { clampAge, isInRange } from '../submodels/age-range.js';
import { formerSmokerFraction } from '../submodels/general-hazards.js';
import { KOTZ_AGE_RANGE, kotzSmokingHazard } from '../submodels/kotz.js';
import { PLCO_AGE_RANGE, PLCO_HIGH_RISK, plcoEducationLevel, plcoRisk6 } from '../submodels/plco.js';
import { roundTo } from '../text/format.js';
import { NOTICES } from '../text/notices.js';
import { bmiNotice, factor, pushNotice, smokingClause } from './common.js';
import { baseEstimate, type Estimate } from './estimate.js';
import { INPUT_LABELS as L } from './labels.js';

const LABEL =
  'COPD hazard ratios (Kotz et al., NPJ Primary Care Respiratory Medicine 2014) as a relative hazard, former smokers scaled by time since quitting; 6-year lung cancer risk by PLCOm2012 (Tammemägi et al., NEJM 2013) for people who have smoked';

/** The Kotz smoking hazard for this person (model-v1 §7). */
function smokingHazard(inputs: ModelInputs): number {
  const { smoking } = inputs;
  if (!smoking.ever) return kotzSmokingHazard(inputs.sex, 'never');
  if (smoking.current) return kotzSmokingHazard(inputs.sex, 'current');
  return kotzSmokingHazard(inputs.sex, { formerFraction: formerSmokerFraction(smoking.yearsSinceQuitting) });
}

/**
 * PLCOm2012 for ever-smokers when intensity and duration are known (model-v1 §7). It does not enter
 * the score: it is reported and caps the tier at ≥ 1.51 %. Someone who already has lung cancer is
 * outside the model's use, so it is not computed for them.
 */
function addLungCancerRisk(est: Estimate, inputs: ModelInputs): void {
  const { smoking } = inputs;
  if (!smoking.ever || inputs.conditions.lungCancer) return;
  const perDay = smoking.cigarettesPerDay;
  if (perDay === null || smoking.yearsSmoked === null) {
    const missing: string[] = [];
    if (perDay === null) missing.push('the number of cigarettes a day');
    if (smoking.startAge === null) missing.push('the age smoking started');
    else if (smoking.yearsSmoked === null) missing.push('the age smoking stopped');
    est.notices.push(NOTICES.lungCancerNotComputed(missing));
    return;
  }
  const age = clampAge(inputs.age.value, PLCO_AGE_RANGE);
  const risk = plcoRisk6({
    ageYears: age,
    educationLevel: plcoEducationLevel(inputs.education.value),
    bmi: inputs.bmi.value,
    copd: false,
    personalCancerHistory: false,
    familyLungCancer: inputs.family.lungCancer,
    ethnicGroup: inputs.ethnicGroup,
    current: smoking.current,
    cigarettesPerDay: perDay.value,
    yearsSmoked: smoking.yearsSmoked,
    yearsSinceQuitting: smoking.yearsSinceQuitting ?? 0,
  });
  if (risk >= PLCO_HIGH_RISK) est.tierCap = { cap: 'low', notice: NOTICES.lungCancerCap(risk) };
  est.extras.push({
    label: '6-year lung cancer risk',
    value: roundTo(risk * 100, 2),
    unit: '%',
    note: 'PLCOm2012; 1.51% or more is the level at which lung screening is usually considered',
  });
  est.inputsUsed.push(
    L.smokingIntensity,
    L.smokingDuration,
    L.yearsSinceQuitting,
    L.education,
    L.bmi,
    L.ethnicity,
    L.parentalLungCancer,
  );
  est.inputsImputed.push(L.copd, L.otherCancer);
  if (!isInRange(inputs.age.value, PLCO_AGE_RANGE)) est.notices.push(NOTICES.lungCancerAgeRange(age));
  if (perDay.provenance === 'assumed' && smoking.intensityWord !== null) {
    est.notices.push(NOTICES.intensityAssumed(smoking.intensityWord, perDay.value));
    est.inputsImputed.push(L.smokingIntensity);
  }
  if (inputs.education.provenance === 'assumed') {
    est.notices.push(NOTICES.educationAssumed);
    est.inputsImputed.push(L.education);
  }
  if (inputs.bmi.provenance === 'assumed') est.inputsImputed.push(L.bmi);
  pushNotice(est.notices, bmiNotice(inputs));
}

/**
 * Respiratory (model-v1 §2, §7): Kotz COPD relative hazard versus a never-smoker of the same age
 * and sex; PLCOm2012 lung-cancer risk beside it.
 */
export function estimateRespiratory(inputs: ModelInputs): Estimate {
  const hazard = smokingHazard(inputs);
  const est = baseEstimate('kotz-2014-copd', LABEL);
  est.horizonYears = 10;
  est.risk = hazard;
  est.referenceRisk = 1;
  est.score = relativeScore(1, hazard);
  est.hasSmokingTerm = true;
  est.fittedAgeRange = KOTZ_AGE_RANGE;
  est.existingCondition = inputs.conditions.lungCancer ? 'lung cancer' : null;
  est.partial = inputs.markers === null;
  if (est.partial) est.notices.push(NOTICES.documentsOnly);

  const { smoking } = inputs;
  est.factors.push(factor('smoking', L.smoking, Math.log(hazard), () => smokingClause(inputs)));
  est.inputsUsed.push(L.age, L.sex, L.smoking);
  if (smoking.ever && !smoking.current) {
    est.inputsUsed.push(L.yearsSinceQuitting);
    if (smoking.yearsSinceQuitting === null) est.notices.push(NOTICES.stopAgeUnknown);
  }
  est.inputsImputed.push(L.asthma, L.deprivation);
  est.notices.push(NOTICES.notCollected(['asthma', 'area deprivation'], ''));
  addLungCancerRisk(est, inputs);
  return est;
}
