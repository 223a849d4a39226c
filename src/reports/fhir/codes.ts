import type { MarkerCode } from '../../domain/submission/markers.js';

/**
 * The terminology of the FHIR export (docs/fhir.md lists each code with its source). LOINC codes
 * are those for the analyte in our unit: substance concentration for mmol/L and µmol/L, mass
 * concentration for g/L and mg/L, catalytic concentration for U/L.
 */
export const SYSTEMS = {
  loinc: 'http://loinc.org',
  snomed: 'http://snomed.info/sct',
  ucum: 'http://unitsofmeasure.org',
  observationCategory: 'http://terminology.hl7.org/CodeSystem/observation-category',
  diagnosticServiceSection: 'http://terminology.hl7.org/CodeSystem/v2-0074',
  riskProbability: 'http://terminology.hl7.org/CodeSystem/risk-probability',
  rfc3986: 'urn:ietf:rfc:3986',
} as const;

/** The core extension that says why an element has no value. */
export const DATA_ABSENT_REASON = 'http://hl7.org/fhir/StructureDefinition/data-absent-reason';

export interface LabCode {
  loinc: string;
  display: string;
  /** The UCUM spelling of the marker's unit. */
  ucum: string;
}

export const MARKER_LOINC: Readonly<Record<MarkerCode, LabCode>> = {
  ALBUMIN: { loinc: '1751-7', display: 'Albumin [Mass/volume] in Serum or Plasma', ucum: 'g/L' },
  ALT: {
    loinc: '1742-6',
    display: 'Alanine aminotransferase [Enzymatic activity/volume] in Serum or Plasma',
    ucum: 'U/L',
  },
  ALP: {
    loinc: '6768-6',
    display: 'Alkaline phosphatase [Enzymatic activity/volume] in Serum or Plasma',
    ucum: 'U/L',
  },
  AST: {
    loinc: '1920-8',
    display: 'Aspartate aminotransferase [Enzymatic activity/volume] in Serum or Plasma',
    ucum: 'U/L',
  },
  CALCIUM: { loinc: '2000-8', display: 'Calcium [Moles/volume] in Serum or Plasma', ucum: 'mmol/L' },
  CHOL: { loinc: '14647-2', display: 'Cholesterol [Moles/volume] in Serum or Plasma', ucum: 'mmol/L' },
  CYSTATIN_C: { loinc: '33863-2', display: 'Cystatin C [Mass/volume] in Serum or Plasma', ucum: 'mg/L' },
  GGT: {
    loinc: '2324-2',
    display: 'Gamma glutamyl transferase [Enzymatic activity/volume] in Serum or Plasma',
    ucum: 'U/L',
  },
  HDL: { loinc: '14646-4', display: 'Cholesterol in HDL [Moles/volume] in Serum or Plasma', ucum: 'mmol/L' },
  CRP: { loinc: '1988-5', display: 'C reactive protein [Mass/volume] in Serum or Plasma', ucum: 'mg/L' },
  // Method unspecified: partners send direct and calculated LDL under the same code.
  LDL: { loinc: '22748-8', display: 'Cholesterol in LDL [Moles/volume] in Serum or Plasma', ucum: 'mmol/L' },
  PHOSPHATE: { loinc: '14879-1', display: 'Phosphate [Moles/volume] in Serum or Plasma', ucum: 'mmol/L' },
  URATE: { loinc: '14933-6', display: 'Urate [Moles/volume] in Serum or Plasma', ucum: 'umol/L' },
  HBA1C_MMOL_MOL: {
    loinc: '59261-8',
    display: 'Hemoglobin A1c/Hemoglobin.total in Blood by IFCC protocol',
    ucum: 'mmol/mol',
  },
};

export const VITALS = {
  weight: { loinc: '29463-7', display: 'Body weight', ucum: 'kg' },
  height: { loinc: '8302-2', display: 'Body height', ucum: 'cm' },
  bmi: { loinc: '39156-5', display: 'Body mass index (BMI) [Ratio]', ucum: 'kg/m2' },
} as const satisfies Record<string, LabCode>;

export const SMOKING_STATUS_LOINC = { loinc: '72166-2', display: 'Tobacco smoking status' } as const;

/** SNOMED CT answers of the US Core / IPS smoking-status value sets. */
export const SMOKING_ANSWERS = {
  never: { code: '266919005', display: 'Never smoked tobacco' },
  former: { code: '8517006', display: 'Ex-smoker' },
  everyDay: { code: '449868002', display: 'Smokes tobacco daily' },
  someDays: { code: '428041000124106', display: 'Occasional tobacco smoker' },
  current: { code: '77176002', display: 'Smoker' },
  unknown: { code: '266927001', display: 'Tobacco smoking consumption unknown' },
} as const;

/**
 * Where our own identifiers and extensions live: URNs, because they name our data and are not
 * pages anyone should fetch.
 */
export const HEALTHSPAN = {
  subjectSystem: (partnerId: string) => `urn:healthspan:partner:${partnerId}:subject`,
  model: 'urn:healthspan:model',
  wellbeingScore: 'urn:healthspan:fhir:extension:wellbeing-score',
  referencePlacement: 'urn:healthspan:fhir:extension:reference-placement',
  placementSystem: 'urn:healthspan:fhir:reference-placement',
} as const;
