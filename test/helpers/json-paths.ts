/** Every path in a JSON value (`a.b[0].c`), parents before children: places to break a body. */
export function collectPaths(value: unknown, prefix = ''): string[] {
  if (Array.isArray(value)) {
    return value.flatMap((v, i) => [`${prefix}[${i}]`, ...collectPaths(v, `${prefix}[${i}]`)]);
  }
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => {
      const p = prefix === '' ? k : `${prefix}.${k}`;
      return [p, ...collectPaths(v, p)];
    });
  }
  return [];
}
