import type { Sex } from '../derived/sex.js';

/**
 * Published all-cause mortality hazard ratios used where no joint equation exists (research §4).
 * Multiplying them onto another model is a [synthesis], flagged "not jointly validated".
 */

/**
 * Smoking → all-cause mortality, Cho ER et al., NEJM Evidence 2024 [VERIFIED abstract]
 * (model-v1 §7): current 2.8 (women) / 2.7 (men), former 1.3, versus never.
 */
export const CHO_SMOKING_HR = {
  current: { female: 2.8, male: 2.7 } as Readonly<Record<Sex, number>>,
  former: 1.3,
} as const;

export function smokingMortalityHr(sex: Sex, status: 'never' | 'former' | 'current'): number {
  if (status === 'current') return CHO_SMOKING_HR.current[sex];
  return status === 'former' ? CHO_SMOKING_HR.former : 1;
}

export type SelfRatedHealth = 'excellent' | 'very_good' | 'good' | 'fair' | 'poor';

/**
 * Self-rated health → all-cause mortality versus "excellent", DeSalvo KB et al., J Gen Intern Med
 * 2006;21:267 [VERIFIED] (model-v1 §7): good 1.23, fair 1.44, poor 1.92; "very good" is not
 * reported separately and is taken as 1.0 with "excellent".
 */
export const DESALVO_SRH_HR: Readonly<Record<SelfRatedHealth, number>> = {
  excellent: 1,
  very_good: 1,
  good: 1.23,
  fair: 1.44,
  poor: 1.92,
};

/**
 * Years since quitting (former daily smokers) → all-cause mortality versus never, JAMA Netw
 * Open 2020;3(6):e206436 Table 3 [VERIFIED table] (research §4): <2 y 2.18, 2–<5 y 1.96,
 * 5–<10 y 1.69, ≥10 y 1.18.
 */
export function quitDurationHr(yearsSinceQuitting: number): number {
  if (yearsSinceQuitting < 2) return 2.18;
  if (yearsSinceQuitting < 5) return 1.96;
  if (yearsSinceQuitting < 10) return 1.69;
  return 1.18;
}

/** The current-smoker hazard ratio the quit fractions are measured against (model-v1 §7). */
const CURRENT_SMOKER_MORTALITY_HR = 2.75;

/**
 * Share of smoking's excess risk that remains after quitting, (HR_quit − 1) / (2.75 − 1),
 * exact quotients as model-v1 §7 requires [synthesis]. An unknown stop age takes the 2–<5 y
 * value (0.549).
 */
export function formerSmokerFraction(yearsSinceQuitting: number | null): number {
  const hr = quitDurationHr(yearsSinceQuitting ?? 2);
  return (hr - 1) / (CURRENT_SMOKER_MORTALITY_HR - 1);
}
