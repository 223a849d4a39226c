import type { Sex } from '../derived/sex.js';
import type { AgeRange } from './age-range.js';

/**
 * Kotz D et al., 10-year risk of GP-recorded COPD, NPJ Prim Care Respir Med 2014 (PMC4373306),
 * used as a relative hazard: the baseline survival is [UNVERIFIED] (research §2.4.2).
 * Person and reference share age band and sex, and deprivation and asthma are not collected
 * (reference level in both), so only the smoking hazard ratio differs between them.
 */

export const KOTZ_AGE_RANGE: AgeRange = { min: 35, max: 74 };

/** Ever- vs never-smoker hazard ratio: research §2.4.2 table [VERIFIED, PMC4373306 Table 2]. */
export const KOTZ_EVER_SMOKER_HR: Readonly<Record<Sex, number>> = {
  female: 9.61,
  male: 6.72,
};

/**
 * model-v1 §7: current smokers take the full hazard ratio; former smokers take
 * 1 + (HR − 1) × f, f being the share of smoking's excess risk left after quitting.
 */
export function kotzSmokingHazard(
  sex: Sex,
  smoking: 'never' | 'current' | { formerFraction: number },
): number {
  if (smoking === 'never') return 1;
  const hr = KOTZ_EVER_SMOKER_HR[sex];
  if (smoking === 'current') return hr;
  return 1 + (hr - 1) * smoking.formerFraction;
}
