/** The ages a sub-model was fitted on (model-v1 §7); outside them it is evaluated at the nearest bound. */
export interface AgeRange {
  min: number;
  max: number;
}

export function clampAge(age: number, range: AgeRange): number {
  return Math.min(range.max, Math.max(range.min, age));
}

export function isInRange(age: number, range: AgeRange): boolean {
  return age >= range.min && age <= range.max;
}
