import type { MarkerCode } from '../../submission/markers.js';
import type { ModelInputs } from '../inputs.js';
import { REFERENCE } from '../reference.js';
import { relativeScore } from '../scoring/score.js';
import {
  BORTZ_FEATURE_COUNT,
  BORTZ_FEATURES,
  type BortzFeature,
  baaFromTerms,
  baaHazardRatio,
  bortzAgeTerm,
  bortzFeatureTerm,
} from '../submodels/bortz.js';
import { DESALVO_SRH_HR, type SelfRatedHealth, smokingMortalityHr } from '../submodels/general-hazards.js';
import { fixed, roundTo } from '../text/format.js';
import { NOTICES } from '../text/notices.js';
import { factor, smokingClause } from './common.js';
import { baseEstimate, type Estimate, type FactorEffect } from './estimate.js';
import { INPUT_LABELS as L } from './labels.js';

const LABELS = {
  withMarkers:
    'Blood biological age (Bortz et al., Communications Biology 2023) combined with self-rated health (DeSalvo et al., 2006) and smoking (Cho et al., 2024) hazard ratios; not jointly validated',
  questionnaire:
    'Self-rated health (DeSalvo et al., 2006) and smoking (Cho et al., 2024) hazard ratios; not jointly validated',
} as const;

interface PanelFeature {
  code: MarkerCode;
  feature: BortzFeature;
  label: string;
  /** How the marker is named inside a sentence. */
  short: string;
  unit: string;
  /** The model takes the natural log of the value. */
  logged: boolean;
}

/** Our 8 of the 25 Bortz features (research §2.5.2), in the model's order. */
const PANEL_FEATURES: readonly PanelFeature[] = [
  { code: 'ALBUMIN', feature: 'albumin', label: 'Albumin', short: 'albumin', unit: 'g/L', logged: false },
  {
    code: 'ALP',
    feature: 'alkaline_phosphatase',
    label: 'Alkaline phosphatase (ALP)',
    short: 'ALP',
    unit: 'U/L',
    logged: false,
  },
  {
    code: 'CHOL',
    feature: 'cholesterol',
    label: 'Total cholesterol',
    short: 'total cholesterol',
    unit: 'mmol/L',
    logged: false,
  },
  {
    code: 'CYSTATIN_C',
    feature: 'cystatin_c',
    label: 'Cystatin C',
    short: 'cystatin C',
    unit: 'mg/L',
    logged: false,
  },
  {
    code: 'HBA1C_MMOL_MOL',
    feature: 'glycated_haemoglobin',
    label: 'HbA1c',
    short: 'HbA1c',
    unit: 'mmol/mol',
    logged: false,
  },
  {
    code: 'CRP',
    feature: 'log_c_reactive_protein',
    label: 'C-reactive protein (CRP)',
    short: 'CRP',
    unit: 'mg/L',
    logged: true,
  },
  {
    code: 'GGT',
    feature: 'log_gamma_glutamyltransf',
    label: 'Gamma-glutamyl transferase (GGT)',
    short: 'GGT',
    unit: 'U/L',
    logged: true,
  },
  {
    code: 'ALT',
    feature: 'log_alanine_aminotransfe',
    label: 'Alanine aminotransferase (ALT)',
    short: 'ALT',
    unit: 'U/L',
    logged: true,
  },
];

const SRH_WORDS: Readonly<Record<SelfRatedHealth, string>> = {
  excellent: 'excellent',
  very_good: 'very good',
  good: 'good',
  fair: 'fair',
  poor: 'poor',
};

function decimalsFor(value: number): number {
  return value >= 100 ? 0 : value >= 10 ? 1 : 2;
}

function markerFactor(p: PanelFeature, value: number): FactorEffect {
  const difference = bortzFeatureTerm(p.feature, p.logged ? Math.log(value) : value);
  const mean = BORTZ_FEATURES[p.feature].mean;
  const shownMean = p.logged ? Math.exp(mean) : mean;
  const higher = value > shownMean;
  return factor(
    p.feature,
    p.label,
    difference,
    () =>
      `Your ${p.short} (${fixed(value, decimalsFor(value))} ${p.unit}) is ${higher ? 'above' : 'below'} the study average of ${fixed(shownMean, decimalsFor(shownMean))} ${p.unit}`,
  );
}

/** BAA from the panel: the 17 features we do not measure sit at their means (contribute 0). */
function biologicalAge(
  est: Estimate,
  inputs: ModelInputs,
  markers: Partial<Record<MarkerCode, number>>,
): number {
  let used = 0;
  let logHazard = 0;
  for (const p of PANEL_FEATURES) {
    const value = markers[p.code];
    if (value === undefined) continue;
    used += 1;
    const f = markerFactor(p, value);
    logHazard += f.difference;
    est.factors.push(f);
    est.inputsUsed.push(p.label);
  }
  const ageTerm = bortzAgeTerm(inputs.age.value);
  // Not a factor a person can act on: it removes the markers' average drift with age, so it is
  // listed for completeness but never named in explanations.
  est.factors.push(
    factor('ageAllowance', 'Allowance for the usual change of blood markers with age', ageTerm, null),
  );
  const baa = baaFromTerms(logHazard, ageTerm);
  est.inputsImputed.push(L.otherBloodMarkers);
  est.notices.push(NOTICES.generalMarkersImputed(used, BORTZ_FEATURE_COUNT));
  est.equivalentAge = { label: 'Biological age (blood markers)', years: roundTo(inputs.age.value + baa, 1) };
  est.extras.push(
    { label: 'Biological age acceleration', value: roundTo(baa, 2), unit: 'years', note: null },
    {
      label: 'Blood markers used by the biological age method',
      value: used,
      unit: 'markers',
      note: `of ${BORTZ_FEATURE_COUNT}; the others were taken as average`,
    },
  );
  return baa;
}

/**
 * General (model-v1 §2, §7): HR = exp(BAA/10) × self-rated-health HR × smoking HR, versus a
 * reference with BAA 0, "good" self-rated health and no smoking. Without markers, the
 * questionnaire hazard ratios alone.
 */
export function estimateGeneral(inputs: ModelInputs): Estimate {
  const { markers, smoking } = inputs;
  const est = baseEstimate(
    markers === null ? 'questionnaire-hazards' : 'bortz-2023-general',
    markers === null ? LABELS.questionnaire : LABELS.withMarkers,
  );
  est.partial = markers === null;
  if (est.partial) est.notices.push(NOTICES.documentsOnly);
  const baa = markers === null ? REFERENCE.biologicalAgeAcceleration : biologicalAge(est, inputs, markers);

  const srh = inputs.selfRatedHealth.value;
  const srhDiff = Math.log(DESALVO_SRH_HR[srh] / DESALVO_SRH_HR[REFERENCE.selfRatedHealth]);
  const status = !smoking.ever ? 'never' : smoking.current ? 'current' : 'former';
  const smokingDiff = Math.log(smokingMortalityHr(inputs.sex, status));
  est.factors.push(
    factor(
      'selfRatedHealth',
      L.selfRatedHealth,
      srhDiff,
      () =>
        `You rated your overall health as ${SRH_WORDS[srh]}, ${srhDiff > 0 ? 'below' : 'above'} the reference of good`,
    ),
    factor('smoking', L.smoking, smokingDiff, () => smokingClause(inputs)),
  );
  est.inputsUsed.push(L.age, L.selfRatedHealth, L.smoking);
  if (inputs.selfRatedHealth.provenance === 'assumed') {
    est.notices.push(NOTICES.selfRatedHealthAssumed);
    est.inputsImputed.push(L.selfRatedHealth);
  }
  est.notices.push(NOTICES.generalNotJointlyValidated);

  const hazardRatio = baaHazardRatio(baa) * Math.exp(srhDiff + smokingDiff);
  est.risk = hazardRatio;
  est.referenceRisk = 1;
  est.score = relativeScore(1, hazardRatio);
  est.hasSmokingTerm = true;
  return est;
}
