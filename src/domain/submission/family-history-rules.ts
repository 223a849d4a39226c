import type { PathSegment, ValidationIssue } from './issue-messages.js';
import { isPlainObject, isSet } from './raw-values.js';

export const ALIVE_STATUSES = ['alive', 'deceased', 'unknown'] as const;
export type AliveStatus = (typeof ALIVE_STATUSES)[number];

export const FAMILY_CONDITIONS = [
  'diabetes_mellitus',
  'cardiovascular_disease',
  'cerebrovascular_disease',
  'dementia',
  'alzheimer_disease',
  'kidney_disease',
  'lung_cancer',
  'other_malignancy',
  'hypertension',
  'none_known',
  'unknown',
] as const;
export type FamilyCondition = (typeof FAMILY_CONDITIONS)[number];

export const PARENTS = ['father', 'mother'] as const;

function statusOf(parent: Record<string, unknown>): AliveStatus | null {
  const s = parent.aliveStatus;
  // The spec does not require aliveStatus; absent is read as unknown.
  if (s === undefined) return 'unknown';
  return typeof s === 'string' && (ALIVE_STATUSES as readonly string[]).includes(s)
    ? (s as AliveStatus)
    : null;
}

function checkParent(parent: Record<string, unknown>, base: PathSegment[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const status = statusOf(parent);
  const shown = parent.aliveStatus === undefined ? 'unknown (or not sent)' : status;
  if (status !== null) {
    const required = status === 'alive' ? 'currentAge' : status === 'deceased' ? 'deathAge' : null;
    for (const field of ['deathAge', 'currentAge'] as const) {
      if (field === required) {
        if (!isSet(parent[field])) {
          issues.push({
            path: [...base, field],
            message: `${field} is required when aliveStatus is ${status}`,
          });
        }
      } else if (isSet(parent[field])) {
        issues.push({
          path: [...base, field],
          message: `${field} must be omitted (or -1) when aliveStatus is ${shown}`,
        });
      }
    }
  }
  // Any set of the documented codes is accepted (the contract lists codes and forbids no
  // combination); how a mixed list is read is deriveFamily's, in the model.
  return issues;
}

/** Family rules of partner-api.md, for each parent sent. */
export function checkFamilyHistory(familyHistory: unknown): ValidationIssue[] {
  if (!isPlainObject(familyHistory)) return [];
  const issues: ValidationIssue[] = [];
  for (const parent of PARENTS) {
    const value = familyHistory[parent];
    if (isPlainObject(value)) issues.push(...checkParent(value, ['subject', 'familyHistory', parent]));
  }
  return issues;
}
