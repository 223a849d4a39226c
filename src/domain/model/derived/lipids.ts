/** Lipid-derived values (research §1.5). */

/** mmol/L → mg/dL for cholesterol, the factor used with Framingham (research §1.5). */
export const CHOLESTEROL_MG_DL_PER_MMOL_L = 38.67;

export function cholesterolMgDl(mmolPerL: number): number {
  return mmolPerL * CHOLESTEROL_MG_DL_PER_MMOL_L;
}

/** Non-HDL cholesterol = total − HDL (mmol/L). */
export function nonHdlCholesterol(totalMmolL: number, hdlMmolL: number): number {
  return totalMmolL - hdlMmolL;
}

/** Total-to-HDL cholesterol ratio. */
export function totalToHdlRatio(totalMmolL: number, hdlMmolL: number): number {
  return totalMmolL / hdlMmolL;
}
