import type { Provenance } from '../domain/model/types.js';

/**
 * Plain-language labels for the report artifacts. The outcome, status, placement and tier
 * labels are the partner-facing ones of the result reads (src/domain/model/partner-view.ts), so
 * a report and a result read never word the same thing differently; the two below exist only
 * in reports.
 */

export {
  OUTCOME_FOCUS,
  OUTCOME_STATUS_LABELS,
  PLACEMENT_LABELS,
  TIER_LABELS,
} from '../domain/model/partner-view.js';

/** model-v1.md §1: "each derived value records whether it was measured, computed or assumed". */
export const PROVENANCE_LABELS: Readonly<Record<Provenance, string>> = {
  measured: 'Measured',
  reported: 'Reported',
  computed: 'Calculated',
  assumed: 'Assumed',
};

export const SEX_LABELS: Readonly<Record<'male' | 'female', string>> = {
  male: 'Male',
  female: 'Female',
};
