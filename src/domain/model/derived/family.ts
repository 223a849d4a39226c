import type { FamilyCondition } from '../../submission/family-history-rules.js';
import type { NormalisedSubmission } from '../../submission/panel.js';

type FamilyHistory = NonNullable<NormalisedSubmission['subject']['familyHistory']>;
type Parent = NonNullable<FamilyHistory['father']>;

/** Whether either parent had a condition (model-v1 §1). */
export interface ParentalFlags {
  /** Dementia or Alzheimer's disease: UKBDRS "parental history of dementia" (research §2.2.2). */
  dementia: boolean;
  /** PLCOm2012 "family history of lung cancer" (research §2.4.3). */
  lungCancer: boolean;
  cardiovascular: boolean;
  cerebrovascular: boolean;
  diabetes: boolean;
  kidney: boolean;
}

export interface FamilyProfile extends ParentalFlags {
  /** The age each parent reached: current age if alive, age at death if deceased. */
  fatherAgeReached: number | null;
  motherAgeReached: number | null;
}

/**
 * A listed condition counts whatever else is listed: `none_known` and `unknown` never cancel
 * one (a partner's form may add "none known" for one question and a condition for another),
 * and on their own they mean the same as no condition for the model.
 */
function has(parent: Parent | undefined, ...conditions: FamilyCondition[]): boolean {
  const listed = parent?.conditions;
  return listed !== undefined && conditions.some((c) => listed.includes(c));
}

function ageReached(parent: Parent | undefined): number | null {
  if (parent === undefined) return null;
  if (parent.aliveStatus === 'alive') return parent.currentAge ?? null;
  if (parent.aliveStatus === 'deceased') return parent.deathAge ?? null;
  return null;
}

export function deriveFamily(family: FamilyHistory | undefined): FamilyProfile {
  const father = family?.father;
  const mother = family?.mother;
  const either = (...conditions: FamilyCondition[]) =>
    has(father, ...conditions) || has(mother, ...conditions);
  return {
    dementia: either('dementia', 'alzheimer_disease'),
    lungCancer: either('lung_cancer'),
    cardiovascular: either('cardiovascular_disease'),
    cerebrovascular: either('cerebrovascular_disease'),
    diabetes: either('diabetes_mellitus'),
    kidney: either('kidney_disease'),
    fatherAgeReached: ageReached(father),
    motherAgeReached: ageReached(mother),
  };
}
