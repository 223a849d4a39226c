/**
 * The 14-analyte blood panel the partner integration sends, with the unit and
 * default plausibility range each value is checked against (partner-api.md,
 * "Marker entry").
 */

export const MARKER_CODES = [
  'ALBUMIN',
  'ALT',
  'ALP',
  'AST',
  'CALCIUM',
  'CHOL',
  'CYSTATIN_C',
  'GGT',
  'HDL',
  'CRP',
  'LDL',
  'PHOSPHATE',
  'URATE',
  'HBA1C_MMOL_MOL',
] as const;

export type MarkerCode = (typeof MARKER_CODES)[number];

export interface MarkerRange {
  lower: number;
  upper: number;
}

export interface MarkerDefinition {
  code: MarkerCode;
  /** Plain-language name for partner-facing text and reports. */
  name: string;
  /** Required unit, spelled as in the spec. */
  unit: string;
  /** Inclusive bounds used unless `sourceMetadata.markerRanges` lists the code. */
  defaultRange: MarkerRange;
  /** One plain sentence saying what the marker is. */
  description: string;
}

export const MARKERS: Readonly<Record<MarkerCode, MarkerDefinition>> = {
  ALBUMIN: {
    code: 'ALBUMIN',
    name: 'Albumin',
    unit: 'g/L',
    defaultRange: { lower: 15, upper: 60 },
    description:
      'A protein made by the liver that keeps fluid inside the blood vessels and carries substances around the body.',
  },
  ALT: {
    code: 'ALT',
    name: 'Alanine aminotransferase (ALT)',
    unit: 'U/L',
    defaultRange: { lower: 3, upper: 500 },
    description:
      'An enzyme found mostly in the liver; more of it in the blood can mean the liver is under strain.',
  },
  ALP: {
    code: 'ALP',
    name: 'Alkaline phosphatase (ALP)',
    unit: 'U/L',
    defaultRange: { lower: 5, upper: 1500 },
    description: 'An enzyme found mainly in the liver and bones.',
  },
  AST: {
    code: 'AST',
    name: 'Aspartate aminotransferase (AST)',
    unit: 'U/L',
    defaultRange: { lower: 3, upper: 1000 },
    description: 'An enzyme found in the liver, heart and muscles.',
  },
  CALCIUM: {
    code: 'CALCIUM',
    name: 'Calcium',
    unit: 'mmol/L',
    defaultRange: { lower: 1, upper: 5 },
    description: 'A mineral the body needs for strong bones, nerve signals and working muscles.',
  },
  CHOL: {
    code: 'CHOL',
    name: 'Total cholesterol',
    unit: 'mmol/L',
    defaultRange: { lower: 0.5, upper: 18 },
    description: 'The total amount of cholesterol, a fatty substance, carried in the blood.',
  },
  CYSTATIN_C: {
    code: 'CYSTATIN_C',
    name: 'Cystatin C',
    unit: 'mg/L',
    defaultRange: { lower: 0.1, upper: 8.99 },
    description: 'A small protein cleared by the kidneys, used to gauge how well they filter the blood.',
  },
  GGT: {
    code: 'GGT',
    name: 'Gamma-glutamyl transferase (GGT)',
    unit: 'U/L',
    defaultRange: { lower: 5, upper: 1200 },
    description:
      'A liver enzyme that can rise when the liver or bile ducts are under strain, or with alcohol use.',
  },
  HDL: {
    code: 'HDL',
    name: 'HDL cholesterol',
    unit: 'mmol/L',
    defaultRange: { lower: 0.05, upper: 4.65 },
    description: 'The cholesterol that carries excess cholesterol away from the arteries to the liver.',
  },
  CRP: {
    code: 'CRP',
    name: 'C-reactive protein (CRP)',
    unit: 'mg/L',
    defaultRange: { lower: 0.08, upper: 80 },
    description: 'A protein made by the liver that rises when there is inflammation in the body.',
  },
  LDL: {
    code: 'LDL',
    name: 'LDL cholesterol',
    unit: 'mmol/L',
    defaultRange: { lower: 0.26, upper: 10.3 },
    description: 'The cholesterol that can build up in the walls of the arteries.',
  },
  PHOSPHATE: {
    code: 'PHOSPHATE',
    name: 'Phosphate',
    unit: 'mmol/L',
    defaultRange: { lower: 0.32, upper: 6.4 },
    description: 'A mineral that works with calcium to build bones and teeth and helps the body use energy.',
  },
  URATE: {
    code: 'URATE',
    name: 'Urate (uric acid)',
    unit: 'µmol/L',
    defaultRange: { lower: 89, upper: 1785 },
    description: 'A waste product of the normal breakdown of cells and food, cleared by the kidneys.',
  },
  HBA1C_MMOL_MOL: {
    code: 'HBA1C_MMOL_MOL',
    name: 'HbA1c',
    unit: 'mmol/mol',
    defaultRange: { lower: 15, upper: 515.2 },
    description: 'A measure of average blood sugar over roughly the past two to three months.',
  },
};

/**
 * Accepted aliases (the spec calls the list open-ended, so new ones go here).
 * `HBA1C` resolves like the others; the panel check insists on mmol/mol for it
 * because the bare name is also used for the percentage (DCCT) scale.
 */
export const MARKER_ALIASES: Readonly<Record<string, MarkerCode>> = {
  ALB: 'ALBUMIN',
  CA: 'CALCIUM',
  TCHOL: 'CHOL',
  TOTAL_CHOLESTEROL: 'CHOL',
  CYSTATIN: 'CYSTATIN_C',
  HDL_CHOLESTEROL: 'HDL',
  C_REACTIVE_PROTEIN: 'CRP',
  LDL_DIRECT: 'LDL',
  PHOS: 'PHOSPHATE',
  UA: 'URATE',
  HBA1C: 'HBA1C_MMOL_MOL',
};

// A Map rather than object lookup so codes such as "constructor" cannot hit Object.prototype.
const CODE_LOOKUP: ReadonlyMap<string, MarkerCode> = new Map<string, MarkerCode>([
  ...MARKER_CODES.map((code): [string, MarkerCode] => [code, code]),
  ...Object.entries(MARKER_ALIASES),
]);

/**
 * Resolves a sent code or alias to its canonical code. Case-insensitive and
 * trimmed; inner spaces and hyphens are read as underscores so that
 * `Cystatin-C` or `c reactive protein` resolve too.
 */
export function resolveMarkerCode(raw: string): MarkerCode | null {
  const exact = CODE_LOOKUP.get(raw);
  if (exact !== undefined) return exact;
  return (
    CODE_LOOKUP.get(
      raw
        .trim()
        .toUpperCase()
        .replace(/[\s-]+/g, '_'),
    ) ?? null
  );
}

/** Whether `raw` names the HbA1c alias that is only valid with unit mmol/mol. */
export function isHba1cAlias(raw: string): boolean {
  return raw.length >= 5 && raw.trim().toUpperCase() === 'HBA1C';
}

/**
 * Canonical comparison form of a unit: trimmed, lower-case, with the micro
 * sign (U+00B5), Greek mu (U+03BC) and ASCII `u` all folded to `u`, because
 * lab systems emit all three for the same unit.
 */
export function normaliseUnit(u: string): string {
  return u
    .trim()
    .replace(/[\u00b5\u03bc]/g, 'u')
    .toLowerCase();
}

export function unitsEqual(a: string, b: string): boolean {
  return a === b || normaliseUnit(a) === normaliseUnit(b);
}
