/**
 * De Ritis ratio AST/ALT (research §1.6). Display only: no outcome model uses it, and the
 * source review warns that reading causes from cut-offs is "far too simplistic".
 */
export function deRitisRatio(astUL: number, altUL: number): number {
  return astUL / altUL;
}
