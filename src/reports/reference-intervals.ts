import type { MarkerCode } from '../domain/submission/markers.js';
import type { MarkerPosition, ReportInterval } from './schema.js';

/**
 * "Where the value sits" for the 14 markers: the typical adult intervals of
 * /work/shared/science/research.md §1.7 (our units), for display and flagging only, never as
 * risk anchors. model-v1.md ships only [VERIFIED] or [IMPL] numbers, so ALP, whose interval
 * §1.7 marks [UNVERIFIED], gets none; cholesterol, HDL, LDL, CRP and HbA1c are the one-sided
 * levels §1.7 gives (NHS targets, the AHA/CDC CRP tiers, the WHO/NICE HbA1c thresholds).
 */

export type Sex = 'male' | 'female';

const OXFORD = 'Oxford Handbook of Clinical Medicine, table 2.1';
const LEINO = 'Leino et al., Scand J Clin Lab Invest 1995;55:243';
const HARMONY = 'UK Pathology Harmony (PMC4975217, table 3)';

function range(
  lower: number,
  upper: number,
  appliesTo: string,
  source: string,
  digits: number,
): ReportInterval {
  return {
    kind: 'reference_interval',
    lower,
    upper,
    lowerInclusive: true,
    upperInclusive: true,
    text: `${lower.toFixed(digits)}–${upper.toFixed(digits)}`,
    appliesTo,
    source,
  };
}

function adults(sex: Sex): string {
  return sex === 'female' ? 'Adult women' : 'Adult men';
}

function bySex(
  sex: Sex,
  male: readonly [number, number],
  female: readonly [number, number],
  source: string,
): ReportInterval {
  const [lower, upper] = sex === 'female' ? female : male;
  return range(lower, upper, adults(sex), source, 0);
}

const ALBUMIN = range(35, 50, 'Adults', OXFORD, 0);
const CALCIUM = range(2.12, 2.65, 'Adults (total calcium)', `${OXFORD}; ${HARMONY}`, 2);
const PHOSPHATE = range(0.8, 1.5, 'Adults', HARMONY, 1);
const CYSTATIN_UNDER_50 = range(
  0.53,
  0.92,
  'Adults under 50',
  'Finney et al., Ann Clin Biochem 2000;37:49 (approximate)',
  2,
);
const CYSTATIN_50_AND_OVER = range(
  0.58,
  1.02,
  'Adults aged 50 and over',
  'Finney et al., Ann Clin Biochem 2000;37:49 (approximate)',
  2,
);
const CHOL: ReportInterval = {
  kind: 'target',
  lower: null,
  upper: 5,
  lowerInclusive: false,
  upperInclusive: true,
  text: '5.0 or lower',
  appliesTo: 'Adults (NHS healthy level)',
  source: 'NHS healthy cholesterol levels',
};
const HDL: ReportInterval = {
  kind: 'target',
  lower: 1,
  upper: null,
  lowerInclusive: true,
  upperInclusive: false,
  text: '1.0 or higher',
  appliesTo: 'Adults (NHS healthy level)',
  source: 'NHS healthy cholesterol levels',
};
const LDL: ReportInterval = {
  kind: 'target',
  lower: null,
  upper: 3,
  lowerInclusive: false,
  upperInclusive: true,
  text: '3.0 or lower',
  appliesTo: 'Adults (NHS/NICE healthy level)',
  source: 'NHS/NICE via cholesterolmatters.co.uk',
};
const CRP: ReportInterval = {
  kind: 'target',
  lower: null,
  upper: 3,
  lowerInclusive: false,
  upperInclusive: true,
  text: '3 or lower',
  appliesTo: 'Adults (high-sensitivity CRP)',
  source: 'Pearson et al., AHA/CDC statement, Circulation 2003;107:499',
};
const HBA1C: ReportInterval = {
  kind: 'target',
  lower: null,
  upper: 42,
  lowerInclusive: false,
  upperInclusive: false,
  text: 'below 42',
  appliesTo: 'Adults (WHO 2011 / NICE)',
  source: 'WHO 2011; NICE NG28',
};

/** The interval a marker is shown against, or null when none is verified (ALP). */
export function referenceInterval(
  code: MarkerCode,
  sex: Sex,
  ageYears: number | null,
): ReportInterval | null {
  switch (code) {
    case 'ALBUMIN':
      return ALBUMIN;
    case 'ALT':
      // Ceriotti et al. 2010 IFCC-traceable multicentre interval, as tabulated in World J Methodol 2016;6:93.
      return bySex(sex, [9, 59], [8, 41], 'Ceriotti et al. 2010, via World J Methodol 2016;6:93');
    case 'ALP':
      return null;
    case 'AST':
      return bySex(sex, [15, 36], [13, 33], LEINO);
    case 'CALCIUM':
      return CALCIUM;
    case 'CHOL':
      return CHOL;
    case 'CYSTATIN_C':
      return ageYears !== null && ageYears < 50 ? CYSTATIN_UNDER_50 : CYSTATIN_50_AND_OVER;
    case 'GGT':
      return bySex(sex, [11, 58], [8, 42], LEINO);
    case 'HDL':
      return HDL;
    case 'CRP':
      return CRP;
    case 'LDL':
      return LDL;
    case 'PHOSPHATE':
      return PHOSPHATE;
    case 'URATE':
      return bySex(sex, [210, 480], [150, 390], OXFORD);
    case 'HBA1C_MMOL_MOL':
      return HBA1C;
  }
}

export function positionIn(value: number, interval: ReportInterval): 'below' | 'within' | 'above' {
  const { lower, upper } = interval;
  if (lower !== null && (interval.lowerInclusive ? value < lower : value <= lower)) return 'below';
  if (upper !== null && (interval.upperInclusive ? value > upper : value >= upper)) return 'above';
  return 'within';
}

export function positionLabel(position: MarkerPosition, interval: ReportInterval | null): string {
  switch (position) {
    case 'not_measured':
      return 'Not measured';
    case 'no_interval':
      return 'No reference range shown';
    default: {
      const target = interval?.kind === 'target';
      if (position === 'within') return target ? 'Meets the healthy level' : 'Within the typical range';
      if (position === 'below') return target ? 'Below the healthy level' : 'Below the typical range';
      return target ? 'Above the healthy level' : 'Above the typical range';
    }
  }
}

/** A further remark where research.md §1.7 names categories inside or beyond the range. */
export function markerComment(code: MarkerCode, value: number | null): string | null {
  if (code === 'ALP') {
    return 'Reference ranges for ALP differ between laboratories; compare with the range printed on your laboratory report.';
  }
  if (value === null) return null;
  if (code === 'HBA1C_MMOL_MOL') {
    if (value >= 48) return 'At or above 48 mmol/mol, the level used to diagnose diabetes.';
    if (value >= 42) return 'In the 42–47 mmol/mol range often called prediabetes.';
    return null;
  }
  if (code === 'CRP') {
    if (value > 10)
      return 'Above 10 mg/L usually reflects a recent infection or injury rather than long-term risk.';
    if (value > 3)
      return 'Above 3 mg/L is the higher of the three heart-risk levels (below 1, 1–3, above 3).';
    if (value >= 1) return 'Between 1 and 3 mg/L is the average of the three heart-risk levels.';
    return 'Below 1 mg/L is the lowest of the three heart-risk levels.';
  }
  return null;
}
