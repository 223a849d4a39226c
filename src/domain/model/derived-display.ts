import { BMI_CATEGORY_LABELS } from './derived/bmi.js';
import { deRitisRatio } from './derived/de-ritis.js';
import { KDIGO_STAGE_LABELS } from './derived/egfr.js';
import { ETHNIC_GROUP_LABELS } from './derived/ethnicity.js';
import { GLYCAEMIC_CATEGORY_LABELS } from './derived/hba1c.js';
import { nonHdlCholesterol, totalToHdlRatio } from './derived/lipids.js';
import type { ModelInputs } from './inputs.js';
import { roundTo } from './text/format.js';
import type { DerivedDisplayItem, Provenance } from './types.js';

const SMOKING_STATUS_WORDS = {
  never: 'Never smoked',
  former: 'Former smoker',
  current: 'Current smoker',
  prefer_not_to_say: 'Not shared (counted as never smoked)',
} as const;

function item(
  key: string,
  label: string,
  value: DerivedDisplayItem['value'],
  unit: string | null,
  provenance: Provenance,
  note: string | null = null,
): DerivedDisplayItem {
  return { key, label, value, unit, provenance, note };
}

function markerItems(inputs: ModelInputs, out: DerivedDisplayItem[]): void {
  const m = inputs.markers;
  if (m === null) return;
  if (inputs.egfr !== null) {
    out.push(
      item(
        'egfrCys',
        'Kidney filtering rate (eGFR from cystatin C, CKD-EPI 2012)',
        roundTo(inputs.egfr.value, 1),
        'mL/min/1.73 m²',
        'computed',
        KDIGO_STAGE_LABELS[inputs.egfr.stage],
      ),
      item('kdigoStage', 'Kidney function stage (KDIGO)', inputs.egfr.stage, null, 'computed'),
    );
  }
  if (inputs.hba1c !== null) {
    out.push(
      item(
        'hba1cPercent',
        'HbA1c (NGSP %)',
        roundTo(inputs.hba1c.percent, 2),
        '%',
        'computed',
        GLYCAEMIC_CATEGORY_LABELS[inputs.hba1c.category],
      ),
    );
  }
  if (m.CHOL !== undefined && m.HDL !== undefined) {
    out.push(
      item(
        'nonHdl',
        'Non-HDL cholesterol',
        roundTo(nonHdlCholesterol(m.CHOL, m.HDL), 2),
        'mmol/L',
        'computed',
      ),
      item(
        'tcHdlRatio',
        'Total cholesterol to HDL ratio',
        roundTo(totalToHdlRatio(m.CHOL, m.HDL), 2),
        null,
        'computed',
      ),
    );
  }
  if (m.AST !== undefined && m.ALT !== undefined) {
    out.push(
      item(
        'deRitisRatio',
        'AST to ALT ratio (De Ritis)',
        roundTo(deRitisRatio(m.AST, m.ALT), 2),
        null,
        'computed',
        'For display only; not used in any estimate',
      ),
    );
  }
}

function smokingItems(inputs: ModelInputs, out: DerivedDisplayItem[]): void {
  const s = inputs.smoking;
  out.push(item('smokingStatus', 'Smoking', SMOKING_STATUS_WORDS[s.status], null, s.statusProvenance));
  if (s.cigarettesPerDay !== null) {
    out.push(
      item(
        'cigarettesPerDay',
        'Cigarettes a day',
        s.cigarettesPerDay.value,
        'per day',
        s.cigarettesPerDay.provenance,
        s.intensityWord === null ? null : `Assumed from "${s.intensityWord}" smoking`,
      ),
    );
  }
  if (s.yearsSmoked !== null)
    out.push(item('yearsSmoked', 'Years smoked', s.yearsSmoked, 'years', 'computed'));
  if (s.ever && !s.current && s.yearsSinceQuitting !== null) {
    out.push(item('yearsSinceQuitting', 'Years since quitting', s.yearsSinceQuitting, 'years', 'computed'));
  }
  if (s.packYears !== null) {
    const provenance = s.cigarettesPerDay?.provenance === 'assumed' ? 'assumed' : 'computed';
    out.push(item('packYears', 'Pack-years', roundTo(s.packYears, 1), 'pack-years', provenance));
  }
}

function familyItems(inputs: ModelInputs, out: DerivedDisplayItem[]): void {
  const f = inputs.family;
  const flags: Array<[string, string, boolean]> = [
    ['parentalDementia', "Parent with dementia or Alzheimer's disease", f.dementia],
    ['parentalLungCancer', 'Parent with lung cancer', f.lungCancer],
    ['parentalCardiovascular', 'Parent with cardiovascular disease', f.cardiovascular],
    ['parentalCerebrovascular', 'Parent with cerebrovascular disease', f.cerebrovascular],
    ['parentalDiabetes', 'Parent with diabetes', f.diabetes],
    ['parentalKidney', 'Parent with kidney disease', f.kidney],
  ];
  for (const [key, label, value] of flags) out.push(item(key, label, value, null, 'reported'));
  if (f.fatherAgeReached !== null) {
    out.push(
      item('fatherAgeReached', "Father's age (now or at death)", f.fatherAgeReached, 'years', 'reported'),
    );
  }
  if (f.motherAgeReached !== null) {
    out.push(
      item('motherAgeReached', "Mother's age (now or at death)", f.motherAgeReached, 'years', 'reported'),
    );
  }
}

/** The derived inputs shown in reports, each with its provenance (model-v1 §1). */
export function derivedItems(inputs: ModelInputs): DerivedDisplayItem[] {
  const out: DerivedDisplayItem[] = [
    item('ageYears', 'Age', inputs.age.value, 'years', inputs.age.provenance),
    item(
      'bmi',
      'Body mass index',
      roundTo(inputs.bmi.value, 1),
      'kg/m²',
      inputs.bmi.provenance,
      inputs.bmi.issue === null
        ? BMI_CATEGORY_LABELS[inputs.bmi.category]
        : 'Assumed: height and weight not usable',
    ),
    item(
      'educationYears',
      'Years of education',
      roundTo(inputs.education.value, 2),
      'years',
      inputs.education.provenance,
      inputs.education.provenance === 'assumed' ? 'Assumed: the study average' : null,
    ),
    // What the partner sent, as sent (free text), then the group the models map it to.
    ...(inputs.ethnicityText === null
      ? []
      : [item('ethnicity', 'Ethnicity (as sent)', inputs.ethnicityText, null, 'reported')]),
    item(
      'ethnicGroup',
      'Ethnic group used by the models',
      ETHNIC_GROUP_LABELS[inputs.ethnicGroup],
      null,
      'computed',
    ),
    item(
      'diabetes',
      'Diabetes',
      inputs.diabetes.value,
      null,
      inputs.diabetes.provenance,
      inputs.diabetes.byHba1c ? 'HbA1c in the diabetes range' : null,
    ),
  ];
  markerItems(inputs, out);
  smokingItems(inputs, out);
  familyItems(inputs, out);
  return out;
}
