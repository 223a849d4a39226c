import type { PathSegment, ValidationIssue } from './issue-messages.js';
import { isPlainObject, isSet, setNumber } from './raw-values.js';

export const SMOKING_STATUSES = ['never', 'former', 'current', 'prefer_not_to_say'] as const;
export type SmokingStatus = (typeof SMOKING_STATUSES)[number];

export const SMOKING_FREQUENCIES = ['none', 'light', 'moderate', 'heavy', 'unknown'] as const;
export type SmokingFrequency = (typeof SMOKING_FREQUENCIES)[number];

const SMOKING: PathSegment[] = ['subject', 'history', 'smoking'];

const DETAIL_FIELDS = [
  'pastFrequency',
  'currentFrequency',
  'currentCigsPerDay',
  'pastCigsPerDay',
  'stopAge',
  'startAge',
] as const;
type DetailField = (typeof DETAIL_FIELDS)[number];

/** Detail fields each status allows besides startAge, which depends on the heavy branch. */
const ALLOWED_FIELDS: Readonly<Record<SmokingStatus, ReadonlySet<DetailField>>> = {
  never: new Set(),
  prefer_not_to_say: new Set(),
  former: new Set(['pastFrequency', 'pastCigsPerDay', 'stopAge']),
  current: new Set(['currentFrequency', 'currentCigsPerDay']),
};

function isStatus(v: unknown): v is SmokingStatus {
  return typeof v === 'string' && (SMOKING_STATUSES as readonly string[]).includes(v);
}

function omitMessage(field: DetailField, status: SmokingStatus, heavyField: string | null): string {
  if (status === 'never' || status === 'prefer_not_to_say') {
    return `${field} must be omitted when status is ${status}; only status may be sent`;
  }
  if (field === 'startAge') {
    return `startAge must be omitted unless ${heavyField} is heavy; it is only sent for heavy smoking`;
  }
  if (field === 'currentFrequency' && status === 'former') {
    return 'currentFrequency must be omitted when status is former; use pastFrequency (and never send none for a former smoker)';
  }
  return `${field} must be omitted when status is ${status}`;
}

/**
 * Branch rules of partner-api.md "Smoking rules". The -1 sentinel counts as
 * absent everywhere. Rules needing the status are skipped when the status is
 * missing or invalid (the schema reports that); the age cross-checks run anyway.
 */
export function checkSmoking(smoking: unknown, subjectAge: number | null): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (!isPlainObject(smoking)) return issues;
  const at = (field: DetailField) => [...SMOKING, field];
  const { status } = smoking;

  if (isStatus(status)) {
    const heavyField =
      status === 'current' ? 'currentFrequency' : status === 'former' ? 'pastFrequency' : null;
    const heavy = heavyField !== null && smoking[heavyField] === 'heavy';
    for (const field of DETAIL_FIELDS) {
      if (!isSet(smoking[field])) continue;
      const allowed = field === 'startAge' ? heavy : ALLOWED_FIELDS[status].has(field);
      if (!allowed) issues.push({ path: at(field), message: omitMessage(field, status, heavyField) });
    }
    if (status === 'former' && !isSet(smoking.stopAge)) {
      issues.push({
        path: at('stopAge'),
        message: 'stopAge is required when status is former (the age at which the subject stopped smoking)',
      });
    }
    if (status === 'current') {
      const frequency = smoking.currentFrequency;
      const hasIntensity =
        isSet(smoking.currentCigsPerDay) || (frequency !== undefined && frequency !== 'unknown');
      if (!hasIntensity) {
        issues.push({
          path: at('currentFrequency'),
          message:
            'currentFrequency (other than unknown) or currentCigsPerDay is required when status is current, so smoking intensity is defined',
        });
      }
    }
  }

  const startAge = setNumber(smoking.startAge);
  const stopAge = setNumber(smoking.stopAge);
  if (startAge !== null && stopAge !== null && startAge > stopAge) {
    issues.push({
      path: at('startAge'),
      message: `startAge (${startAge}) must not be greater than stopAge (${stopAge})`,
    });
  }
  if (subjectAge !== null) {
    for (const [field, value] of [
      ['stopAge', stopAge],
      ['startAge', startAge],
    ] as const) {
      if (value !== null && value > subjectAge) {
        issues.push({
          path: at(field),
          message: `${field} (${value}) must not be greater than the subject's age (${subjectAge})`,
        });
      }
    }
  }
  return issues;
}
