import type { PathSegment, ValidationIssue } from './issue-messages.js';
import { isIntegerIn, isPlainObject } from './raw-values.js';

const DEMOGRAPHICS: PathSegment[] = ['subject', 'demographics'];

export const MAX_AGE_YEARS = 120;

/**
 * The date ages are judged at: when intake was completed if the partner said
 * so, otherwise the time of the request. An unparseable timestamp falls back
 * to `now`; the schema reports it separately.
 */
export function referenceDate(body: Record<string, unknown>, now: Date): Date {
  const meta = body.sourceMetadata;
  if (isPlainObject(meta) && typeof meta.sourceTimestamp === 'string') {
    const t = Date.parse(meta.sourceTimestamp);
    if (!Number.isNaN(t)) return new Date(t);
  }
  return now;
}

export interface AgeCheck {
  issues: ValidationIssue[];
  /** The subject's age when it can be known, for the smoking age cross-checks. */
  subjectAge: number | null;
}

/**
 * With only a birth year the exact age is unknown: it is the reference year
 * minus the birth year, or one less if the birthday has not come yet. The
 * implied age used here is the larger of the two, so checks never reject a
 * subject who could have that age.
 */
export function checkAges(demographics: unknown, reference: Date): AgeCheck {
  const issues: ValidationIssue[] = [];
  if (!isPlainObject(demographics)) return { issues, subjectAge: null };
  const { ageYears, birthYear } = demographics;
  if (ageYears === undefined && birthYear === undefined) {
    issues.push({
      path: [...DEMOGRAPHICS, 'ageYears'],
      message: 'ageYears or birthYear is required (send ageYears when known)',
    });
    return { issues, subjectAge: null };
  }
  const validAge = isIntegerIn(ageYears, 0, MAX_AGE_YEARS) ? ageYears : null;
  let impliedAge: number | null = null;
  if (isIntegerIn(birthYear, 1900, 2100)) {
    const referenceYear = reference.getUTCFullYear();
    const implied = referenceYear - birthYear;
    if (implied < 0) {
      issues.push({
        path: [...DEMOGRAPHICS, 'birthYear'],
        message: `birthYear must not be in the future (the reference year is ${referenceYear})`,
      });
    } else if (implied > MAX_AGE_YEARS) {
      issues.push({
        path: [...DEMOGRAPHICS, 'birthYear'],
        message: `birthYear implies an age over ${MAX_AGE_YEARS} in ${referenceYear}; check the birth year`,
      });
    } else {
      impliedAge = implied;
      if (validAge !== null && Math.abs(validAge - implied) > 1) {
        issues.push({
          path: [...DEMOGRAPHICS, 'birthYear'],
          message: `birthYear and ageYears disagree: birthYear ${birthYear} means an age of about ${implied} in ${referenceYear}, but ageYears is ${validAge}; they must agree within 1 year`,
        });
      }
    }
  }
  return { issues, subjectAge: validAge ?? impliedAge };
}
