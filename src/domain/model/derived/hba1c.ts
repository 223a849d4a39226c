/**
 * HbA1c conversions and categories (research §1.2).
 * NGSP master equation [VERIFIED, ngsp.org]: % = 0.09148 × mmol/mol + 2.152. Older copies of
 * one public implementation carry the typo 0.09418; this is the published 0.09148.
 */
export function hba1cPercent(mmolPerMol: number): number {
  return 0.09148 * mmolPerMol + 2.152;
}

/** WHO 2011 diagnostic threshold [VERIFIED]: ≥ 48 mmol/mol (6.5 %) is diabetes. */
export const DIABETES_HBA1C_MMOL_MOL = 48;
/** NICE / Diabetes UK non-diabetic hyperglycaemia starts at 42 mmol/mol [VERIFIED]. */
export const PREDIABETES_HBA1C_MMOL_MOL = 42;

export type GlycaemicCategory = 'normal' | 'prediabetes' | 'diabetes';

/** model-v1 §1: <42, 42–47, ≥48 mmol/mol. */
export function glycaemicCategory(mmolPerMol: number): GlycaemicCategory {
  if (mmolPerMol >= DIABETES_HBA1C_MMOL_MOL) return 'diabetes';
  if (mmolPerMol >= PREDIABETES_HBA1C_MMOL_MOL) return 'prediabetes';
  return 'normal';
}

export const GLYCAEMIC_CATEGORY_LABELS: Readonly<Record<GlycaemicCategory, string>> = {
  normal: 'In the normal range',
  prediabetes: 'Raised (non-diabetic hyperglycaemia range)',
  diabetes: 'In the diabetes range',
};
