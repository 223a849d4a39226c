import type { OutcomeId } from '../submission/outcomes.js';

/**
 * The contract between the wellbeing model, the pipeline that stores its output, and the
 * report renderers. Everything here is serialisable JSON (it is stored as the result bundle).
 */

export const MODEL_NAME = 'healthspan-wellbeing';
/** The version new results are scored with (model-v1.1). */
export const MODEL_VERSION = '1.1.0';
/**
 * Every version a stored result may carry. A result keeps the version that scored it, with its
 * numbers and wording, whenever it is read or rendered again: nothing is rescored.
 */
export const MODEL_VERSIONS = ['1.0.0', MODEL_VERSION] as const;
export type ModelVersion = (typeof MODEL_VERSIONS)[number];

/** How a value came to be: read from the submission, calculated from it, or assumed. */
export type Provenance = 'measured' | 'reported' | 'computed' | 'assumed';

export type OutcomeStatus = 'completed' | 'partial' | 'failed';
export type ReferencePlacement = 'below_reference' | 'above_reference' | 'indeterminate';
export type Tier = 'low' | 'medium' | 'high' | 'unknown';

/** One derived model input, ready to show in a report. */
export interface DerivedDisplayItem {
  /** Stable machine key, e.g. `bmi`, `egfrCys`, `hba1cPercent`, `packYears`. */
  key: string;
  /** Plain-language name, e.g. "Body mass index". */
  label: string;
  value: number | string | boolean;
  /** Unit for numbers (e.g. "kg/m²", "mL/min/1.73 m²", "%"), or null. */
  unit: string | null;
  provenance: Provenance;
  /** Optional plain-language note, e.g. a category ("Healthy weight") or an assumption made. */
  note: string | null;
}

export interface Contribution {
  /** Stable machine key of the factor, e.g. `hdl`, `smoking`, `bmi`. */
  factor: string;
  /** Plain-language name of the factor, e.g. "HDL cholesterol". */
  label: string;
  /** Person's log-hazard minus the reference person's for this factor (positive = unfavourable). */
  logHazardDifference: number;
  direction: 'unfavourable' | 'favourable' | 'neutral';
}

export interface ScoredOutcome {
  outcomeId: OutcomeId;
  status: OutcomeStatus;
  /** 0..1, rounded to 3 decimals; 0 when the outcome failed. */
  score: number;
  placement: ReferencePlacement;
  tier: Tier;
  /** Plain-language notices; never codes. */
  notices: string[];
  /** Machine id of the sub-model that produced the score, e.g. `framingham-2008-lipid`. */
  subModelId: string;
  /** Human name of that sub-model with its source, for reports. */
  subModelLabel: string;
  /** The person's risk (absolute probability 0..1) or relative hazard; null when not computable. */
  risk: number | null;
  referenceRisk: number | null;
  riskKind: 'absolute' | 'relative';
  /** Years the risk refers to; null for relative hazards without a horizon. */
  horizonYears: number | null;
  /** Plain-language names of the inputs the sub-model used, and of those that were imputed. */
  inputsUsed: string[];
  inputsImputed: string[];
  /** Per-factor contributions, largest absolute first. */
  contributions: Contribution[];
  /** Up to three plain-language sentences naming what moved the score most. */
  explanation: string[];
  /** Heart age, dementia-risk age or biological age where the model allows; else null. */
  equivalentAge: { label: string; years: number } | null;
  /** Further figures for reports, e.g. the 6-year lung-cancer risk. */
  extras: Array<{ label: string; value: number; unit: string; note: string | null }>;
}

export interface ModelResult {
  model: { name: typeof MODEL_NAME; version: ModelVersion };
  /** The age the model was evaluated at (whole years). */
  ageYears: number;
  derived: DerivedDisplayItem[];
  /** One per requested outcome, in request order (duplicates already dropped). */
  outcomes: ScoredOutcome[];
}
