import type { AgeRange } from '../submodels/age-range.js';
import { fixed, listOf } from './format.js';

/**
 * Every notice a partner or reader can see (model-v1 §4): one plain-language sentence per
 * assumption or rule, never a code.
 */
export const NOTICES = {
  adultsOnly: 'This service is designed for adults aged 18 and over, so this area was not estimated.',
  outsideAgeRange: (range: AgeRange, evaluatedAt: number) =>
    `Your age is outside the age range this estimate was built for (${range.min} to ${range.max} years), so it was worked out for age ${evaluatedAt} and is less certain.`,
  existingCondition: (condition: string) =>
    `An existing condition was reported (${condition}), so this score is not a forecast: the estimate was built for people without that condition.`,
  documentsOnly: 'No blood results were provided, so this estimate uses your questionnaire answers only.',
  smokingNotShared: 'Smoking status was not shared, so this estimate assumes you have never smoked.',
  smokingNotSharedPlacement:
    'Smoking status was not shared, so this estimate assumes you have never smoked and does not say whether you are above or below the reference.',
  bmiMissing: 'Height or weight was not given, so a body mass index of 25 was assumed.',
  bmiImplausible:
    'The height and weight given do not produce a plausible body mass index, so a body mass index of 25 was assumed.',
  educationAssumed: 'Years of education were not given, so the average of 13.5 years was assumed.',
  notCollected: (items: readonly string[], consequence: string) =>
    `This estimate can also use ${listOf(items)}, which are not collected; they were counted as absent${consequence}.`,

  // Cardiovascular
  sbpAssumed: (sbp: number) =>
    `Blood pressure is not collected, so a typical value for your age and sex (${fixed(sbp, 0)} mmHg, without blood pressure treatment) was assumed.`,
  sbpStraddle:
    'Whether you are above or below the reference depends on your blood pressure, which was not measured, so no placement is given.',
  lipidsMissing: 'Without cholesterol results, this estimate uses body mass index in their place.',
  cardiovascularCap: (risk: number, threshold: string) =>
    `The band is limited because the estimated 10-year cardiovascular risk (${fixed(risk * 100, 1)}%) is ${threshold}.`,

  // Cognitive
  strokeProxy:
    'The heart or circulation condition you reported was counted as a past stroke or mini-stroke; if you have not had one, this estimate may be too high.',
  /**
   * model-v1.1 §1: the at-risk line is the published one, 5 % over 14 years, so the notice that
   * explains the cap is the one place the 14-year figure is shown.
   */
  dementiaCap: (risk14: number) =>
    `The band is limited because the estimated dementia risk over 14 years (${fixed(risk14 * 100, 1)}%) is 5% or more, the level the risk score's authors mark as raised.`,
  dementiaTenYearBaseline:
    "This 10-year figure is read from the dementia risk score's published model, not published by its authors, and how well it matches what happens over 10 years has not been reported.",

  // Renal
  renalNeedsCystatin: 'Kidney health cannot be estimated without a cystatin C blood result.',
  renalBelow60:
    'Your estimated kidney filtering rate is below 60, which is worth reviewing with a clinician; this score reflects the current level of kidney function, not a forecast.',
  renalCap: (egfr: number, threshold: string) =>
    `The band is limited because the estimated kidney filtering rate (${fixed(egfr, 0)}) is ${threshold}.`,

  // Respiratory
  stopAgeUnknown:
    'The age you stopped smoking is not known, so a typical benefit of quitting (2 to 5 years ago) was assumed.',
  intensityAssumed: (word: string, perDay: number) =>
    `The number of cigarettes a day was not given, so ${perDay} a day was assumed from "${word}" smoking.`,
  lungCancerAgeRange: (evaluatedAt: number) =>
    `The 6-year lung cancer figure was worked out for age ${evaluatedAt}, the nearest age the lung cancer method covers (55 to 74 years).`,
  /** Names only what was missing: a partner that sent cigarettes a day must not be asked for them. */
  lungCancerNotComputed: (missing: readonly string[]) =>
    `The 6-year lung cancer figure could not be worked out because ${missing.join(' and ')} ${missing.length > 1 ? 'were' : 'was'} not given.`,
  lungCancerCap: (risk: number) =>
    `The band is limited because the estimated 6-year lung cancer risk (${fixed(risk * 100, 2)}%) reaches the level at which lung screening is usually considered (1.51%).`,

  // General
  generalMarkersImputed: (used: number, total: number) =>
    `This estimate uses ${used} of the ${total} blood markers of the biological age method; the others were taken as average.`,
  generalNotJointlyValidated:
    'This estimate combines separately published findings (blood-based biological age, self-rated health and smoking) that have not been validated together.',
  selfRatedHealthAssumed: 'Overall health was not rated, so "good" was assumed.',
} as const;
