import { z } from 'zod';
import { OUTCOME_IDS, type OutcomeId } from '../submission/outcomes.js';
import type { OutcomeStatus, ReferencePlacement, ScoredOutcome, Tier } from './types.js';

/**
 * The partner's view of one scored outcome (partner-api.md "Outcome fields"): plain-language
 * labels only; no sub-model ids, risks or codes. Labels are exported for reports to reuse.
 */

/** Human title of each area. */
export const OUTCOME_FOCUS: Readonly<Record<OutcomeId, string>> = {
  'wellbeing.cardiovascular': 'Heart and circulation',
  'wellbeing.renal': 'Kidney health',
  'wellbeing.cognitive': 'Memory and thinking',
  'wellbeing.respiratory': 'Lungs and breathing',
  'wellbeing.general': 'Overall health',
};

export const PLACEMENT_LABELS: Readonly<Record<ReferencePlacement, string>> = {
  above_reference: 'At or above the reference',
  below_reference: 'Below the reference',
  indeterminate: 'Cannot be placed reliably',
};

export const OUTCOME_STATUS_LABELS: Readonly<Record<OutcomeStatus, string>> = {
  completed: 'Completed',
  partial: 'Partly completed',
  failed: 'Could not be estimated',
};

/** model-v1 §3: tiers in plain language. */
export const TIER_LABELS: Readonly<Record<Tier, string>> = {
  high: 'Supportive',
  medium: 'Partly supportive',
  low: 'Less supportive',
  unknown: 'Not available',
};

const PLACEMENTS = ['below_reference', 'above_reference', 'indeterminate'] as const;
const STATUSES = ['completed', 'partial', 'failed'] as const;
const TIERS = ['low', 'medium', 'high', 'unknown'] as const;

export const partnerOutcomeSchema = z
  .object({
    outcomeId: z.enum(OUTCOME_IDS).meta({ description: 'The wellbeing outcome this entry scores.' }),
    focus: z.string().min(1).meta({ description: 'Human title of the area, e.g. "Heart and circulation".' }),
    score: z.number().min(0).max(1).meta({
      description:
        '0..1 (not 0..100), 3 decimals. 0.5 is a reference person of the same age and sex with healthy values and no family history; higher is more supportive. 0 when the outcome failed.',
    }),
    referencePlacement: z
      .enum(PLACEMENTS)
      .meta({ description: 'Where the score lies against the reference person (0.5).' }),
    referencePlacementLabel: z.string().min(1).meta({ description: 'Display text for referencePlacement.' }),
    outcomeStatus: z.enum(STATUSES).meta({
      description:
        'completed; partial when scored from the questionnaire alone; failed when it could not be scored.',
    }),
    outcomeStatusLabel: z.string().min(1).meta({ description: 'Display text for outcomeStatus.' }),
    band: z
      .object({
        tier: z.enum(TIERS).meta({ description: 'low, medium, high, or unknown when the outcome failed.' }),
        label: z.string().min(1).meta({
          description: 'Display text: Supportive, Partly supportive, Less supportive or Not available.',
        }),
      })
      .optional()
      .meta({ description: 'The band the score falls in, after caps for high absolute risk.' }),
    notices: z
      .array(z.object({ message: z.string().min(1).meta({ description: 'One plain-language sentence.' }) }))
      .optional()
      .meta({ description: 'Informational lines (assumptions, limits); never errors and never codes.' }),
  })
  .meta({ id: 'Outcome', description: 'One scored wellbeing outcome.' });

export type PartnerOutcome = z.infer<typeof partnerOutcomeSchema>;

export function toPartnerOutcome(o: ScoredOutcome): PartnerOutcome {
  const out: PartnerOutcome = {
    outcomeId: o.outcomeId,
    focus: OUTCOME_FOCUS[o.outcomeId],
    score: o.score,
    referencePlacement: o.placement,
    referencePlacementLabel: PLACEMENT_LABELS[o.placement],
    outcomeStatus: o.status,
    outcomeStatusLabel: OUTCOME_STATUS_LABELS[o.status],
    band: { tier: o.tier, label: TIER_LABELS[o.tier] },
  };
  if (o.notices.length > 0) out.notices = o.notices.map((message) => ({ message }));
  return out;
}
