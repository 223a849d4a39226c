import type { Sex } from './derived/sex.js';
import type { SelfRatedHealth } from './submodels/general-hazards.js';

/**
 * The reference person (model-v1 §3): the same age, sex and ethnicity as the person, with every
 * other input at these values. Imputed inputs (SBP) take the person's value. The education value
 * is the UKBDRS centring value (research §2.2.2).
 */
export const REFERENCE = {
  totalCholesterolMmolL: 5.0,
  hdlMmolL: { male: 1.0, female: 1.2 } as Readonly<Record<Sex, number>>,
  bmi: 25,
  hba1cMmolMol: 38,
  egfr: 90,
  educationYears: 13.54,
  selfRatedHealth: 'good' as SelfRatedHealth,
  biologicalAgeAcceleration: 0,
} as const;
