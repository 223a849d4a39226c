import type { OutcomeId } from '../submission/outcomes.js';
import type { NormalisedSubmission } from '../submission/panel.js';
import { ADULT_AGE } from './derived/age.js';
import { derivedItems } from './derived-display.js';
import { type ModelInputs, resolveInputs } from './inputs.js';
import { estimateCardiovascular } from './outcomes/cardiovascular.js';
import { estimateCognitive } from './outcomes/cognitive.js';
import type { Estimate } from './outcomes/estimate.js';
import { estimateGeneral } from './outcomes/general.js';
import { estimateRenal } from './outcomes/renal.js';
import { estimateRespiratory } from './outcomes/respiratory.js';
import { failedOutcome, finalise } from './scoring/finalise.js';
import { NOTICES } from './text/notices.js';
import { MODEL_NAME, MODEL_VERSION, type ModelResult, type ScoredOutcome } from './types.js';

export * from './types.js';

const ESTIMATORS: Readonly<Record<OutcomeId, (inputs: ModelInputs) => Estimate>> = {
  'wellbeing.cardiovascular': estimateCardiovascular,
  'wellbeing.cognitive': estimateCognitive,
  'wellbeing.renal': estimateRenal,
  'wellbeing.respiratory': estimateRespiratory,
  'wellbeing.general': estimateGeneral,
};

function scoreOutcome(outcomeId: OutcomeId, inputs: ModelInputs): ScoredOutcome {
  const estimate = ESTIMATORS[outcomeId](inputs);
  // model-v1 §7: under 18 every outcome fails, whatever else applies (existing conditions included).
  if (inputs.age.value < ADULT_AGE) return failedOutcome(outcomeId, estimate, [NOTICES.adultsOnly]);
  return finalise(outcomeId, estimate, {
    ageYears: inputs.age.value,
    smokingNotShared: inputs.smoking.notShared,
  });
}

/**
 * Scores the requested wellbeing outcomes of an accepted submission (model-v1). Pure: the clock is
 * `opts.now`, used only when the submission carries no source timestamp to age a birth year.
 * Outcomes come in `requestedOutcomes` order; a repeated id is scored once.
 */
export function scoreSubmission(sub: NormalisedSubmission, opts: { now: Date }): ModelResult {
  const inputs = resolveInputs(sub, opts.now);
  const outcomes: ScoredOutcome[] = [];
  const seen = new Set<OutcomeId>();
  for (const id of sub.options.requestedOutcomes) {
    if (seen.has(id)) continue;
    seen.add(id);
    outcomes.push(scoreOutcome(id, inputs));
  }
  return {
    model: { name: MODEL_NAME, version: MODEL_VERSION },
    ageYears: inputs.age.value,
    derived: derivedItems(inputs),
    outcomes,
  };
}
