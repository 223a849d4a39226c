/** Conversions between driver values and the ISO strings / booleans the code uses. */

export function iso(value: string | Date): string {
  return typeof value === 'string' ? value : value.toISOString();
}

export function isoOrNull(value: string | Date | null | undefined): string | null {
  return value === null || value === undefined ? null : iso(value);
}

export function bool(value: number | boolean): boolean {
  return value === true || value === 1;
}

export function json<T>(value: string | object | null): T | null {
  if (value === null) return null;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}
