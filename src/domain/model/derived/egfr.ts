import type { Sex } from './sex.js';

/**
 * eGFR from cystatin C, CKD-EPI 2012 (research §1.1, [VERIFIED] via the NKF page):
 * 133 × min(Scys/0.8, 1)^−0.499 × max(Scys/0.8, 1)^−1.328 × 0.996^age × 0.932 if female.
 * The age base is 0.996 (NKF/primary), not egfr.app's 0.9962. Result in mL/min/1.73 m².
 */
export function egfrCystatinC(cystatinMgL: number, ageYears: number, sex: Sex): number {
  const ratio = cystatinMgL / 0.8;
  return (
    133 *
    Math.min(ratio, 1) ** -0.499 *
    Math.max(ratio, 1) ** -1.328 *
    0.996 ** ageYears *
    (sex === 'female' ? 0.932 : 1)
  );
}

export type KdigoStage = 'G1' | 'G2' | 'G3a' | 'G3b' | 'G4' | 'G5';

/** KDIGO 2012 GFR categories (research §1.1): ≥90, 60–89, 45–59, 30–44, 15–29, <15. */
export function kdigoStage(egfr: number): KdigoStage {
  if (egfr >= 90) return 'G1';
  if (egfr >= 60) return 'G2';
  if (egfr >= 45) return 'G3a';
  if (egfr >= 30) return 'G3b';
  if (egfr >= 15) return 'G4';
  return 'G5';
}

export const KDIGO_STAGE_LABELS: Readonly<Record<KdigoStage, string>> = {
  G1: 'Normal or high',
  G2: 'Mildly decreased',
  G3a: 'Mildly to moderately decreased',
  G3b: 'Moderately to severely decreased',
  G4: 'Severely decreased',
  G5: 'Kidney failure range',
};
