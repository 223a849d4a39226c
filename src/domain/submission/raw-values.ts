/**
 * Readers for the raw request body. Conditional rules run on the raw body
 * rather than on zod's output so that they still report when an unrelated
 * field has a type error (zod skips refinements of objects with failing
 * children); each rule therefore reads defensively and leaves type errors to
 * the schema.
 */

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** The spec's "not applicable" value for optional smoking and family numbers. */
export const NOT_APPLICABLE = -1;

/** Present for branch rules: sent, and not the -1 sentinel (which counts as absent). */
export function isSet(v: unknown): boolean {
  return v !== undefined && v !== NOT_APPLICABLE;
}

/** A usable number for cross-checks: finite and not the sentinel; anything else is left to the schema. */
export function setNumber(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) && v !== NOT_APPLICABLE ? v : null;
}

export function isIntegerIn(v: unknown, min: number, max: number): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max;
}
