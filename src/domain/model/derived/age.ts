import type { Derived } from './provenance.js';

/**
 * Age in whole years (model-v1 §1, §7). `ageYears` wins when both fields are sent; otherwise
 * the calendar year (UTC) of the reference date minus `birthYear`, the same rule the
 * submission checks use, so an accepted birth year never yields a different age here.
 */
export function ageInYears(
  demographics: { ageYears?: number | undefined; birthYear?: number | undefined },
  referenceDate: Date,
): Derived<number> {
  if (demographics.ageYears !== undefined) return { value: demographics.ageYears, provenance: 'reported' };
  if (demographics.birthYear !== undefined) {
    return { value: referenceDate.getUTCFullYear() - demographics.birthYear, provenance: 'computed' };
  }
  // parseSubmission rejects a subject with neither field, so this is a programming error.
  throw new Error('ageYears or birthYear is required');
}

/** The date ages refer to: `sourceMetadata.sourceTimestamp` when sent and parseable, else `now`. */
export function referenceDate(sourceTimestamp: string | undefined, now: Date): Date {
  if (sourceTimestamp !== undefined) {
    const t = Date.parse(sourceTimestamp);
    if (!Number.isNaN(t)) return new Date(t);
  }
  return now;
}

/** Whether the service estimates anything at this age (model-v1 §4: adults only). */
export const ADULT_AGE = 18;
