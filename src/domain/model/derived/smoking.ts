import type { NormalisedSubmission } from '../../submission/panel.js';
import type { SmokingFrequency, SmokingStatus } from '../../submission/smoking-rules.js';
import type { Provenance } from '../types.js';
import type { Derived } from './provenance.js';

type SmokingHistory = NonNullable<NonNullable<NormalisedSubmission['subject']['history']>['smoking']>;

/** A frequency word that implies an intensity. */
export type IntensityWord = 'light' | 'moderate' | 'heavy';

/**
 * Cigarettes per day assumed from a frequency word when no count is given (model-v1 §1).
 * These are product decisions, not published values, so every use is flagged as assumed.
 */
export const CIGARETTES_PER_DAY_FOR_WORD: Readonly<Record<IntensityWord, number>> = {
  light: 5,
  moderate: 15,
  heavy: 25,
};

export interface SmokingProfile {
  /** As reported; an absent smoking object reads as never (model-v1 §7). */
  status: SmokingStatus;
  statusProvenance: Provenance;
  /** What the models use: prefer_not_to_say is computed as never (model-v1 §7). */
  ever: boolean;
  current: boolean;
  /** prefer_not_to_say: drives placement rule (b). */
  notShared: boolean;
  cigarettesPerDay: Derived<number> | null;
  /** The word an assumed intensity came from, for the notice. */
  intensityWord: IntensityWord | null;
  startAge: number | null;
  stopAge: number | null;
  yearsSmoked: number | null;
  /** 0 for current smokers, null for never smokers and when the stop age is unknown. */
  yearsSinceQuitting: number | null;
  packYears: number | null;
}

function intensityWord(frequency: SmokingFrequency | undefined): IntensityWord | null {
  return frequency === 'light' || frequency === 'moderate' || frequency === 'heavy' ? frequency : null;
}

/** Pack-years = cigarettes per day ÷ 20 × years smoked (research §1.4, NCI definition). */
export function packYears(cigarettesPerDay: number, yearsSmoked: number): number {
  return (cigarettesPerDay / 20) * yearsSmoked;
}

const NEVER: SmokingProfile = {
  status: 'never',
  statusProvenance: 'assumed',
  ever: false,
  current: false,
  notShared: false,
  cigarettesPerDay: null,
  intensityWord: null,
  startAge: null,
  stopAge: null,
  yearsSmoked: null,
  yearsSinceQuitting: null,
  packYears: null,
};

/** Smoking exposure in the forms the sub-models need (model-v1 §1, §7). */
export function deriveSmoking(smoking: SmokingHistory | undefined, ageYears: number): SmokingProfile {
  if (smoking === undefined) return NEVER;
  const { status } = smoking;
  if (status === 'never' || status === 'prefer_not_to_say') {
    return { ...NEVER, status, statusProvenance: 'reported', notShared: status === 'prefer_not_to_say' };
  }
  const current = status === 'current';
  const count = current ? smoking.currentCigsPerDay : smoking.pastCigsPerDay;
  const word = intensityWord(current ? smoking.currentFrequency : smoking.pastFrequency);
  // model-v1 §7: a count of 0 (or the -1 sentinel, dropped upstream) is no count.
  let cigarettesPerDay: Derived<number> | null = null;
  if (count !== undefined && count > 0) cigarettesPerDay = { value: count, provenance: 'reported' };
  else if (word !== null)
    cigarettesPerDay = { value: CIGARETTES_PER_DAY_FOR_WORD[word], provenance: 'assumed' };

  const startAge = smoking.startAge ?? null;
  const stopAge = current ? null : (smoking.stopAge ?? null);
  const endAge = current ? ageYears : stopAge;
  const yearsSmoked = startAge !== null && endAge !== null ? Math.max(0, endAge - startAge) : null;
  const yearsSinceQuitting = current ? 0 : stopAge !== null ? Math.max(0, ageYears - stopAge) : null;
  return {
    status,
    statusProvenance: 'reported',
    ever: true,
    current,
    notShared: false,
    cigarettesPerDay,
    intensityWord: cigarettesPerDay?.provenance === 'assumed' ? word : null,
    startAge,
    stopAge,
    yearsSmoked,
    yearsSinceQuitting,
    packYears:
      cigarettesPerDay !== null && yearsSmoked !== null
        ? packYears(cigarettesPerDay.value, yearsSmoked)
        : null,
  };
}
