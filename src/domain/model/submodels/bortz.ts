/**
 * Blood biological age, full elastic-net Cox model (Bortz J et al., Commun Biol 2023;6:1089).
 * BAA (years) = 10 × [Σ_i β_i (x_i − mean_i) + β_age,BAA (age − mean_age)], where
 * β_age,BAA = 0.074763266 − 0.100432393 (the ENET age coefficient minus the sex-and-age-only
 * model's); sex is not used. BAA 0 is the average person of that age (the Bortz convention).
 *
 * research §2.5.2 [IMPL, bortzjd/bloodmarker_BA_estimation@Data/coefficients_and_means.csv;
 * the repo's sample observation reproduces BAA 1.5317]. Logs are natural logs.
 */

export const BORTZ_AGE = { beta: 0.074763266 - 0.100432393, mean: 56.0487752 } as const;

/** β_ENET and centring mean per feature (units inferred from UKB, research §2.5.2). */
export const BORTZ_FEATURES = {
  albumin: { beta: -0.011331946, mean: 45.1238763 }, // g/L ★
  alkaline_phosphatase: { beta: 0.00164946, mean: 82.6847975 }, // U/L ★
  urea: { beta: -0.029554872, mean: 5.3547152 },
  cholesterol: { beta: -0.0805656, mean: 5.6177437 }, // mmol/L ★
  creatinine: { beta: -0.01095746, mean: 71.565605 },
  cystatin_c: { beta: 1.859556436, mean: 0.900946 }, // mg/L ★
  glycated_haemoglobin: { beta: 0.018116675, mean: 35.4785711 }, // mmol/mol ★
  log_c_reactive_protein: { beta: 0.079109916, mean: 0.3003624 }, // ln(mg/L) ★
  log_gamma_glutamyltransf: { beta: 0.265550311, mean: 3.3795613 }, // ln(U/L) ★
  red_blood_cell_erythrocyte_count: { beta: -0.204442153, mean: 4.4994648 },
  mean_corpuscular_volume: { beta: 0.017165356, mean: 91.9251099 },
  red_blood_cell_erythrocyte_distribution_width: { beta: 0.202009895, mean: 13.4342296 },
  monocyte_count: { beta: 0.36937314, mean: 0.4746987 },
  neutrophill_count: { beta: 0.06679092, mean: 4.1849454 },
  lymphocyte_percentage: { beta: -0.0108158, mean: 28.5817604 },
  mean_sphered_cell_volume: { beta: 0.006736204, mean: 83.6363269 },
  log_alanine_aminotransfe: { beta: -0.312442261, mean: 3.077868 }, // ln(U/L) ★
  log_shbg: { beta: 0.292323186, mean: 3.8202787 },
  log_vitamin_d: { beta: -0.265467867, mean: 3.6052878 },
  high_light_scatter_reticulocyte_percentage: { beta: 0.169234165, mean: 0.3988152 },
  glucose: { beta: 0.032171478, mean: 4.9563054 },
  platelet_distribution_width: { beta: 0.071527711, mean: 16.4543576 },
  mean_corpuscular_haemoglobin: { beta: 0.02746487, mean: 31.8396206 },
  platelet_crit: { beta: -1.329561046, mean: 0.2385396 },
  apolipoprotein_a: { beta: -0.185139395, mean: 1.5238771 },
} as const;

export type BortzFeature = keyof typeof BORTZ_FEATURES;

export const BORTZ_FEATURE_COUNT = Object.keys(BORTZ_FEATURES).length;

/** Log-hazard contribution β(x − mean) of one feature; a missing feature sits at its mean (0). */
export function bortzFeatureTerm(feature: BortzFeature, value: number): number {
  const f = BORTZ_FEATURES[feature];
  return f.beta * (value - f.mean);
}

/** The age term, which removes the average drift of the markers with age. */
export function bortzAgeTerm(ageYears: number): number {
  return BORTZ_AGE.beta * (ageYears - BORTZ_AGE.mean);
}

/**
 * BAA in years from the features present; absent ones are mean-imputed (research §2.5.2: an
 * assumption, so the number of features used is shown with the result).
 */
export function bortzBaa(ageYears: number, features: Partial<Record<BortzFeature, number>>): number {
  let featureSum = 0;
  for (const [feature, value] of Object.entries(features) as [BortzFeature, number | undefined][]) {
    if (value !== undefined) featureSum += bortzFeatureTerm(feature, value);
  }
  return baaFromTerms(featureSum, bortzAgeTerm(ageYears));
}

/** BAA in years from the summed feature terms and the age term: 10 × (Σ + age term). */
export function baaFromTerms(featureSum: number, ageTerm: number): number {
  return 10 * (featureSum + ageTerm);
}

/**
 * Hazard ratio versus an average person of the same age, research §2.5.2 [COMPUTED from the
 * model's structure]: exp(BAA / 10).
 */
export function baaHazardRatio(baa: number): number {
  return Math.exp(baa / 10);
}
