import { describe, expect, it } from 'vitest';
import {
  MARKER_ALIASES,
  MARKER_CODES,
  MARKERS,
  type MarkerCode,
  normaliseUnit,
  resolveMarkerCode,
  unitsEqual,
} from '../../src/domain/submission/index.js';

// partner-api.md "Marker entry": code, required unit, default range.
const SPEC_TABLE: Array<[MarkerCode, string, number, number]> = [
  ['ALBUMIN', 'g/L', 15, 60],
  ['ALT', 'U/L', 3, 500],
  ['ALP', 'U/L', 5, 1500],
  ['AST', 'U/L', 3, 1000],
  ['CALCIUM', 'mmol/L', 1, 5],
  ['CHOL', 'mmol/L', 0.5, 18],
  ['CYSTATIN_C', 'mg/L', 0.1, 8.99],
  ['GGT', 'U/L', 5, 1200],
  ['HDL', 'mmol/L', 0.05, 4.65],
  ['CRP', 'mg/L', 0.08, 80],
  ['LDL', 'mmol/L', 0.26, 10.3],
  ['PHOSPHATE', 'mmol/L', 0.32, 6.4],
  ['URATE', 'µmol/L', 89, 1785],
  ['HBA1C_MMOL_MOL', 'mmol/mol', 15, 515.2],
];

describe('marker catalogue', () => {
  it('lists the 14 codes in spec order', () => {
    expect(MARKER_CODES).toEqual(SPEC_TABLE.map(([code]) => code));
  });

  it.each(SPEC_TABLE)('%s has unit %s and default range %d..%d', (code, unit, lower, upper) => {
    const m = MARKERS[code];
    expect(m.code).toBe(code);
    expect(m.unit).toBe(unit);
    expect(m.defaultRange).toEqual({ lower, upper });
    expect(m.name.length).toBeGreaterThan(1);
    expect(m.description).toMatch(/^[A-Z].+\.$/);
    expect(m.description).not.toMatch(/\n/);
  });

  it('spells the URATE unit with the micro sign U+00B5', () => {
    expect(MARKERS.URATE.unit.codePointAt(0)).toBe(0xb5);
  });
});

describe('resolveMarkerCode', () => {
  const aliases: Array<[string, MarkerCode]> = [
    ['ALB', 'ALBUMIN'],
    ['CA', 'CALCIUM'],
    ['TCHOL', 'CHOL'],
    ['TOTAL_CHOLESTEROL', 'CHOL'],
    ['CYSTATIN', 'CYSTATIN_C'],
    ['HDL_CHOLESTEROL', 'HDL'],
    ['C_REACTIVE_PROTEIN', 'CRP'],
    ['LDL_DIRECT', 'LDL'],
    ['PHOS', 'PHOSPHATE'],
    ['UA', 'URATE'],
    ['HBA1C', 'HBA1C_MMOL_MOL'],
  ];

  it('covers every alias in the spec', () => {
    expect(Object.keys(MARKER_ALIASES).sort()).toEqual(aliases.map(([a]) => a).sort());
  });

  it.each(aliases)('resolves the alias %s to %s', (alias, code) => {
    expect(resolveMarkerCode(alias)).toBe(code);
  });

  it.each(MARKER_CODES.map((c) => [c]))('resolves the canonical code %s to itself', (code) => {
    expect(resolveMarkerCode(code)).toBe(code);
  });

  it.each([
    ['alb', 'ALBUMIN'],
    ['  Hdl_Cholesterol ', 'HDL'],
    ['hba1c', 'HBA1C_MMOL_MOL'],
    ['Cystatin-C', 'CYSTATIN_C'],
    ['c reactive protein', 'CRP'],
  ] as const)('is case-insensitive and trims: %j -> %s', (raw, code) => {
    expect(resolveMarkerCode(raw)).toBe(code);
  });

  it.each(['TSH', '', '   ', 'ALBUMINX', 'constructor', '__proto__', 'HBA1C_PERCENT'])(
    'returns null for the unknown code %j',
    (raw) => {
      expect(resolveMarkerCode(raw)).toBeNull();
    },
  );
});

describe('units', () => {
  it.each([
    ['µmol/L', 'μmol/L'],
    ['µmol/L', 'umol/L'],
    ['μmol/L', 'umol/L'],
    ['U/L', 'u/l'],
    [' mmol/L ', 'MMOL/L'],
    ['mmol/mol', 'mmol/mol'],
  ])('%j equals %j', (a, b) => {
    expect(unitsEqual(a, b)).toBe(true);
    expect(unitsEqual(b, a)).toBe(true);
  });

  it.each([
    ['mmol/L', 'mg/L'],
    ['µmol/L', 'mmol/L'],
    ['U/L', 'IU/L'],
    ['mmol/mol', '%'],
    ['g/L', 'g/dL'],
  ])('%j differs from %j', (a, b) => {
    expect(unitsEqual(a, b)).toBe(false);
  });

  it('normalises micro signs, case and surrounding space', () => {
    expect(normaliseUnit(' µmol/L ')).toBe('umol/l');
    expect(normaliseUnit('μmol/L')).toBe('umol/l');
  });
});
