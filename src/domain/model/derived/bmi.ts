/** Body mass index and WHO adult categories (research §1.3). */

export function bodyMassIndex(weightKg: number, heightCm: number): number {
  const metres = heightCm / 100;
  return weightKg / (metres * metres);
}

/**
 * Accepted weights (0–300 kg) and heights (0–250 cm) can combine into a BMI no adult has
 * (a height of 0 gives infinity). Outside this window the pair is treated as unusable and the
 * reference value is assumed instead. The window is ours, not a published range: it only
 * rejects values that must be data-entry errors.
 */
export const PLAUSIBLE_BMI = { min: 10, max: 100 } as const;

export function isPlausibleBmi(bmi: number): boolean {
  return Number.isFinite(bmi) && bmi >= PLAUSIBLE_BMI.min && bmi <= PLAUSIBLE_BMI.max;
}

export type BmiCategory = 'underweight' | 'healthy' | 'overweight' | 'obesity_1' | 'obesity_2' | 'obesity_3';

/** WHO TRS 894 cut-points: <18.5, 18.5–24.9, 25.0–29.9, 30.0–34.9, 35.0–39.9, ≥40. */
export function whoBmiCategory(bmi: number): BmiCategory {
  if (bmi < 18.5) return 'underweight';
  if (bmi < 25) return 'healthy';
  if (bmi < 30) return 'overweight';
  if (bmi < 35) return 'obesity_1';
  if (bmi < 40) return 'obesity_2';
  return 'obesity_3';
}

export const BMI_CATEGORY_LABELS: Readonly<Record<BmiCategory, string>> = {
  underweight: 'Underweight',
  healthy: 'Healthy weight',
  overweight: 'Overweight',
  obesity_1: 'Obesity (class I)',
  obesity_2: 'Obesity (class II)',
  obesity_3: 'Obesity (class III)',
};
