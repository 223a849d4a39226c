import { describe, expect, it } from 'vitest';
import { relativeScore } from '../../../src/domain/model/scoring/score.js';
import {
  BORTZ_FEATURE_COUNT,
  type BortzFeature,
  baaHazardRatio,
  bortzBaa,
} from '../../../src/domain/model/submodels/bortz.js';

/** bortzjd/bloodmarker_BA_estimation@Data/sample_observation.csv (male, 68). */
const SAMPLE: Record<BortzFeature, number> = {
  albumin: 46.59,
  alkaline_phosphatase: 66.1,
  urea: 8.77,
  cholesterol: 4.047,
  creatinine: 105.2,
  cystatin_c: 1.212,
  glycated_haemoglobin: 41.2,
  log_c_reactive_protein: 0.8754687,
  log_gamma_glutamyltransf: 3.580737,
  red_blood_cell_erythrocyte_count: 4.17,
  mean_corpuscular_volume: 89.2,
  red_blood_cell_erythrocyte_distribution_width: 14.8,
  monocyte_count: 0.5,
  neutrophill_count: 6.7,
  lymphocyte_percentage: 11.7,
  mean_sphered_cell_volume: 80.6,
  log_alanine_aminotransfe: 2.98214,
  log_shbg: 3.404525,
  log_vitamin_d: 4.592085,
  high_light_scatter_reticulocyte_percentage: 0.35,
  glucose: 4.641,
  platelet_distribution_width: 15.7,
  mean_corpuscular_haemoglobin: 30.3,
  platelet_crit: 0.298,
  apolipoprotein_a: 1.647,
};

const OURS: BortzFeature[] = [
  'albumin',
  'alkaline_phosphatase',
  'cholesterol',
  'cystatin_c',
  'glycated_haemoglobin',
  'log_c_reactive_protein',
  'log_gamma_glutamyltransf',
  'log_alanine_aminotransfe',
];

describe('Bortz blood biological age (research §2.5.2)', () => {
  it('has 25 features', () => {
    expect(BORTZ_FEATURE_COUNT).toBe(25);
  });
  it('§5 vector 5: the repo sample observation → BAA 1.5317 [IMPL, reproduced]', () => {
    expect(bortzBaa(68, SAMPLE)).toBeCloseTo(1.5317, 4);
  });
  it('[COMPUTED] only our 8 markers, the rest at their means → BAA 5.867', () => {
    const ours = Object.fromEntries(OURS.map((f) => [f, SAMPLE[f]]));
    expect(bortzBaa(68, ours)).toBeCloseTo(5.867, 3);
  });
  it('[COMPUTED] the sample logs are natural logs: ln 2.4, ln 35.9', () => {
    expect(Math.log(2.4)).toBeCloseTo(SAMPLE.log_c_reactive_protein, 6);
    expect(Math.log(35.9)).toBeCloseTo(SAMPLE.log_gamma_glutamyltransf, 6);
  });
  it('[COMPUTED] HR = exp(BAA/10): 1.5317 → 1.166, 5.867 → 1.798', () => {
    expect(baaHazardRatio(1.5317)).toBeCloseTo(1.166, 3);
    expect(baaHazardRatio(5.867)).toBeCloseTo(1.798, 3);
  });
  it('with model-v1’s mapping R_ref/(R_ref+R), those HRs score 0.462 and 0.357', () => {
    // research §3.2 printed 0.858 and 0.556 for its superseded min(1, R_ref/R) mapping.
    expect(relativeScore(1, baaHazardRatio(1.5317))).toBeCloseTo(0.462, 3);
    expect(relativeScore(1, baaHazardRatio(5.867))).toBeCloseTo(0.357, 3);
  });
  it('an average person of any age has BAA 0 only at the mean age; elsewhere the age term applies', () => {
    expect(bortzBaa(56.0487752, {})).toBeCloseTo(0, 12);
    expect(bortzBaa(66.0487752, {})).toBeCloseTo(10 * (0.074763266 - 0.100432393) * 10, 12);
  });
});
