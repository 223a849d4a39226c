import { checkAges, referenceDate } from './age-rules.js';
import { checkFamilyHistory } from './family-history-rules.js';
import type { ValidationIssue } from './issue-messages.js';
import { isPlainObject } from './raw-values.js';
import { checkSmoking } from './smoking-rules.js';

/** Top-level keys of older schema versions, rejected with a pointer to their replacement. */
const LEGACY_TOP_LEVEL_KEYS: Readonly<Record<string, string>> = {
  requestedAssessments:
    'The legacy requestedAssessments field is no longer accepted; use options.requestedOutcomes.',
};

function hasEntries(v: unknown): boolean {
  return Array.isArray(v) && v.length > 0;
}

/**
 * The rules the schema's shape cannot express: legacy keys, markers-or-documents,
 * ages against the reference date, and the smoking and family conditionals.
 */
export function checkConditionalRules(body: Record<string, unknown>, now: Date): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [key, message] of Object.entries(LEGACY_TOP_LEVEL_KEYS)) {
    if (Object.hasOwn(body, key)) issues.push({ path: [key], message });
  }

  const { markers, reportDocuments } = body;
  // A wrongly typed markers/reportDocuments already has its own error; only
  // report the pair when both are absent or empty.
  const wronglyTyped = (v: unknown) => v !== undefined && !Array.isArray(v);
  if (
    !hasEntries(markers) &&
    !hasEntries(reportDocuments) &&
    !wronglyTyped(markers) &&
    !wronglyTyped(reportDocuments)
  ) {
    issues.push({
      path: ['markers'],
      message:
        'markers is required unless reportDocuments is non-empty; send the 14-marker panel or at least one report document',
    });
  }

  const subject = body.subject;
  if (isPlainObject(subject)) {
    const ages = checkAges(subject.demographics, referenceDate(body, now));
    issues.push(...ages.issues);
    const history = subject.history;
    if (isPlainObject(history)) issues.push(...checkSmoking(history.smoking, ages.subjectAge));
    issues.push(...checkFamilyHistory(subject.familyHistory));
  }
  return issues;
}
