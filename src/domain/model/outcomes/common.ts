import type { ModelInputs } from '../inputs.js';
import { NOTICES } from '../text/notices.js';
import type { FactorEffect } from './estimate.js';

/** Pieces several outcome modules share. */

/** The notice for an assumed BMI, or null when BMI was computed from height and weight. */
export function bmiNotice(inputs: ModelInputs): string | null {
  if (inputs.bmi.issue === 'missing') return NOTICES.bmiMissing;
  if (inputs.bmi.issue === 'implausible') return NOTICES.bmiImplausible;
  return null;
}

export function factor(
  factorKey: string,
  label: string,
  difference: number,
  clause: (() => string) | null,
): FactorEffect {
  return { factor: factorKey, label, difference, clause };
}

/** How the person's diabetes is described in explanations. */
export function diabetesClause(inputs: ModelInputs): string {
  return inputs.diabetes.provenance === 'reported'
    ? 'Diabetes, which you reported, raises the estimate'
    : 'Your HbA1c is in the diabetes range, which raises the estimate';
}

/** "You smoke" / "You smoked in the past", for smoking terms (reference: never smoked). */
export function smokingClause(inputs: ModelInputs): string {
  return inputs.smoking.current
    ? 'You smoke, which raises the estimate'
    : 'You smoked in the past, which raises the estimate';
}

/** Pushes `notice` when it is not null. */
export function pushNotice(notices: string[], notice: string | null): void {
  if (notice !== null) notices.push(notice);
}
