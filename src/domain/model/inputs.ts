import type { MarkerCode } from '../submission/markers.js';
import type { NormalisedSubmission } from '../submission/panel.js';
import { ageInYears, referenceDate } from './derived/age.js';
import { type BmiCategory, bodyMassIndex, isPlausibleBmi, whoBmiCategory } from './derived/bmi.js';
import { egfrCystatinC, type KdigoStage, kdigoStage } from './derived/egfr.js';
import { type EthnicGroup, ethnicGroup } from './derived/ethnicity.js';
import { deriveFamily, type FamilyProfile } from './derived/family.js';
import {
  DIABETES_HBA1C_MMOL_MOL,
  type GlycaemicCategory,
  glycaemicCategory,
  hba1cPercent,
} from './derived/hba1c.js';
import type { Derived } from './derived/provenance.js';
import type { Sex } from './derived/sex.js';
import { deriveSmoking, type SmokingProfile } from './derived/smoking.js';
import { REFERENCE } from './reference.js';
import type { SelfRatedHealth } from './submodels/general-hazards.js';

/** Everything the sub-models read, resolved once per submission from the normalised input. */
export interface ModelInputs {
  age: Derived<number>;
  sex: Sex;
  ethnicityText: string | null;
  ethnicGroup: EthnicGroup;
  education: Derived<number>;
  bmi: Derived<number> & {
    category: BmiCategory;
    /** Why the reference value was assumed, when it was. */
    issue: 'missing' | 'implausible' | null;
  };
  /** Blood markers by canonical code; null for a documents-only submission. */
  markers: Partial<Record<MarkerCode, number>> | null;
  egfr: { value: number; stage: KdigoStage } | null;
  hba1c: { mmolPerMol: number; percent: number; category: GlycaemicCategory } | null;
  /** `hasDiabetes`, or HbA1c ≥ 48 mmol/mol (model-v1 §1). */
  diabetes: Derived<boolean> & { byHba1c: boolean };
  conditions: {
    cardioCerebrovascular: boolean;
    dementia: boolean;
    kidneyDisease: boolean;
    lungCancer: boolean;
  };
  selfRatedHealth: Derived<SelfRatedHealth>;
  smoking: SmokingProfile;
  family: FamilyProfile;
}

function resolveBmi(weightKg: number | undefined, heightCm: number | undefined): ModelInputs['bmi'] {
  const assumed = (issue: 'missing' | 'implausible'): ModelInputs['bmi'] => ({
    value: REFERENCE.bmi,
    provenance: 'assumed',
    category: whoBmiCategory(REFERENCE.bmi),
    issue,
  });
  if (weightKg === undefined || heightCm === undefined) return assumed('missing');
  const bmi = bodyMassIndex(weightKg, heightCm);
  if (!isPlausibleBmi(bmi)) return assumed('implausible');
  return { value: bmi, provenance: 'computed', category: whoBmiCategory(bmi), issue: null };
}

function resolveMarkers(sub: NormalisedSubmission): Partial<Record<MarkerCode, number>> | null {
  if (sub.markers.length === 0) return null;
  const out: Partial<Record<MarkerCode, number>> = {};
  for (const m of sub.markers) out[m.code] = m.value;
  return out;
}

export function resolveInputs(sub: NormalisedSubmission, now: Date): ModelInputs {
  const { demographics, measurements, history, familyHistory } = sub.subject;
  const age = ageInYears(demographics, referenceDate(sub.sourceMetadata?.sourceTimestamp, now));
  const sex = demographics.sexAtBirth;
  const markers = resolveMarkers(sub);

  const cystatin = markers?.CYSTATIN_C;
  // CKD-EPI is an adult equation (research §1.1); children get no eGFR (and no estimates).
  const egfrValue =
    cystatin !== undefined && age.value >= 18 ? egfrCystatinC(cystatin, age.value, sex) : null;
  const ifcc = markers?.HBA1C_MMOL_MOL;
  const hba1c =
    ifcc === undefined
      ? null
      : { mmolPerMol: ifcc, percent: hba1cPercent(ifcc), category: glycaemicCategory(ifcc) };

  const conditions = history?.conditions;
  const reportedDiabetes = conditions?.hasDiabetes;
  const byHba1c = ifcc !== undefined && ifcc >= DIABETES_HBA1C_MMOL_MOL;
  // An answer is reported whatever the HbA1c; only an HbA1c in the diabetes range overrides a
  // "no" (then the value is calculated), and an HbA1c alone gives a calculated "no".
  const diabetes: ModelInputs['diabetes'] =
    reportedDiabetes === true
      ? { value: true, provenance: 'reported', byHba1c }
      : byHba1c
        ? { value: true, provenance: 'computed', byHba1c }
        : reportedDiabetes === false
          ? { value: false, provenance: 'reported', byHba1c }
          : { value: false, provenance: ifcc !== undefined ? 'computed' : 'assumed', byHba1c };

  const overall = history?.overallHealth;
  const selfRatedHealth: Derived<SelfRatedHealth> =
    overall === undefined || overall === 'unknown'
      ? { value: REFERENCE.selfRatedHealth, provenance: 'assumed' }
      : { value: overall, provenance: 'reported' };

  return {
    age,
    sex,
    ethnicityText: demographics.ethnicity ?? null,
    ethnicGroup: ethnicGroup(demographics.ethnicity),
    education:
      demographics.educationYears === undefined
        ? { value: REFERENCE.educationYears, provenance: 'assumed' }
        : { value: demographics.educationYears, provenance: 'reported' },
    bmi: resolveBmi(measurements?.weightKg, measurements?.heightCm),
    markers,
    egfr: egfrValue === null ? null : { value: egfrValue, stage: kdigoStage(egfrValue) },
    hba1c,
    diabetes,
    conditions: {
      cardioCerebrovascular: conditions?.hasCardioCerebrovascular === true,
      dementia: conditions?.hasDementia === true,
      kidneyDisease: conditions?.hasKidneyDisease === true,
      lungCancer: conditions?.hasLungCancer === true,
    },
    selfRatedHealth,
    smoking: deriveSmoking(history?.smoking, age.value),
    family: deriveFamily(familyHistory),
  };
}
