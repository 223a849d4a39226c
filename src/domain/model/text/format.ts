/** Number and list formatting for plain-language text (no locale dependence, so output is stable). */

export function fixed(value: number, decimals: number): string {
  return value.toFixed(decimals);
}

/** "a", "a and b", "a, b and c". */
export function listOf(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/**
 * Keeps six significant digits: stored figures stay readable without losing meaning. Arithmetic
 * rather than toPrecision, which is slow on the scoring hot path; dividing an integer by an exact
 * power of ten gives the double nearest the decimal, so the JSON stays short.
 */
export function significant(value: number): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  const digits = 6 - Math.ceil(Math.log10(Math.abs(value)));
  if (digits >= 0) {
    const f = 10 ** digits;
    return Math.round(value * f) / f;
  }
  const f = 10 ** -digits;
  return Math.round(value / f) * f;
}

export function roundTo(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}
