import type { z } from 'zod';
import type { DirectIdentifierKind } from './identifiers.js';
import { OUTCOME_IDS } from './outcomes.js';

/**
 * Plain-language validation messages. Zod's defaults ("Invalid input: expected
 * number, received string") are written for developers; partners get a message
 * naming the field and saying what to send instead. Messages never quote what
 * the partner sent beyond short, truncated keys and codes.
 */

export type PathSegment = string | number;

export interface ValidationIssue {
  path: PathSegment[];
  message: string;
}

/** Issue parameters our own refinements attach; the message is written here, once the path is known. */
export type RuleParams =
  | { rule: 'identifier-in-reference'; kind: DirectIdentifierKind }
  | { rule: 'identifier-in-text'; kind: DirectIdentifierKind }
  | { rule: 'identifier-key' }
  | { rule: 'too-many-keys'; max: number; count: number }
  | { rule: 'unknown-outcome' }
  | { rule: 'sentinel-range'; max: number; integer: boolean };

/** Shortens partner-supplied text (keys, codes, units) before it is put in a message or path. */
export function echo(value: string, max = 40): string {
  return value.length > max ? `${value.slice(0, max - 1)}…` : value;
}

// Long enough for any key the schema itself allows (marker codes are at most 64 characters).
const MAX_PATH_KEY = 64;

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/** `subject.history.smoking.stopAge`, `markers[3].value`, `clinicalExtensions["first name"]`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else {
      const key = echo(String(segment), MAX_PATH_KEY);
      if (PLAIN_KEY.test(key)) out += out === '' ? key : `.${key}`;
      else out += `[${JSON.stringify(key)}]`;
    }
  }
  return out;
}

/** The field a message talks about: the last key, with any array indices after it. */
export function fieldLabel(path: readonly PropertyKey[] | undefined): string {
  if (path === undefined || path.length === 0) return 'The request body';
  let start = path.length - 1;
  while (start > 0 && typeof path[start] === 'number') start--;
  return formatPath(path.slice(start));
}

function withArticle(noun: string): string {
  return /^[aeiou]/i.test(noun) ? `an ${noun}` : `a ${noun}`;
}

const EXPECTED_TYPE: Readonly<Record<string, string>> = {
  string: 'text (a JSON string)',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'a list (JSON array)',
};

function describeValueType(input: unknown): string {
  if (input === null) return 'null';
  if (Array.isArray(input)) return 'a list';
  if (typeof input === 'number') {
    if (Number.isNaN(input)) return 'NaN';
    if (!Number.isFinite(input)) return 'an infinite number';
    return Number.isInteger(input) ? 'a whole number' : 'a decimal number';
  }
  if (typeof input === 'string') return 'text';
  if (typeof input === 'object') return 'an object';
  return typeof input;
}

function formatValue(v: unknown): string {
  return typeof v === 'string' ? `"${echo(v)}"` : String(v);
}

function describeRule(params: RuleParams, label: string): string {
  switch (params.rule) {
    case 'identifier-in-reference':
      return `${label} appears to contain ${withArticle(params.kind)}; send a de-identified reference instead`;
    case 'identifier-in-text':
      return `${label} appears to contain ${withArticle(params.kind)}; remove names, record numbers and contact details before sending`;
    case 'identifier-key':
      return `${label} looks like a direct identifier field (such as a name, contact detail, record number or date of birth); remove it and send de-identified data only`;
    case 'too-many-keys':
      return `${label} may hold at most ${params.max} keys; ${params.count} were sent`;
    case 'unknown-outcome':
      return `${label} is not a recognised outcome; use one of ${OUTCOME_IDS.join(', ')} (wellbeing.kidney, renal.wellbeing and <area>_wellbeing_10y names are also accepted)`;
    case 'sentinel-range':
      return `${label} must be ${params.integer ? 'a whole number' : 'a number'} from 0 to ${params.max}, or -1 for not applicable`;
  }
}

function isRuleParams(params: unknown): params is RuleParams {
  return (
    typeof params === 'object' && params !== null && typeof (params as { rule?: unknown }).rule === 'string'
  );
}

// z.int() reports a non-number as "expected number"; its definition says it wants an integer.
function expectsInteger(iss: { inst?: unknown }): boolean {
  const def = (iss.inst as { _zod?: { def?: { format?: unknown } } } | undefined)?._zod?.def;
  return def?.format === 'safeint' || def?.format === 'int32';
}

/** Error map handed to every safeParse call; zod falls back to it for issues without a message of their own. */
export const describeIssue: z.core.$ZodErrorMap = (iss) => {
  const label = fieldLabel(iss.path);
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return `${label} is required`;
      if (iss.expected === 'number' && typeof iss.input === 'number')
        return `${label} must be a finite number`;
      if (iss.expected === 'int' && typeof iss.input === 'number') return `${label} must be a whole number`;
      return `${label} must be ${EXPECTED_TYPE[expectsInteger(iss) ? 'int' : iss.expected] ?? iss.expected}, not ${describeValueType(iss.input)}`;
    case 'invalid_value':
      if (iss.input === undefined) return `${label} is required`;
      if (iss.values.length === 1) return `${label} must be ${formatValue(iss.values[0])}`;
      return `${label} must be one of: ${iss.values.map(String).join(', ')}`;
    case 'invalid_union':
      if (iss.input === undefined) return `${label} is required`;
      return `${label} is not in an accepted format`;
    case 'invalid_format':
      switch (iss.format) {
        case 'guid':
        case 'uuid':
          return `${label} must be a UUID, for example 7b0c6a2e-3f4d-4f8e-9a61-2b1f0c9d8e7a`;
        case 'datetime':
          return `${label} must be an ISO-8601 date-time with a time zone, for example 2026-11-20T09:30:00Z`;
        case 'date':
          return `${label} must be an ISO-8601 date, for example 2026-11-20`;
        default:
          return `${label} is not in the expected format`;
      }
    case 'too_small':
      if (iss.origin === 'string') {
        return Number(iss.minimum) <= 1
          ? `${label} must not be empty`
          : `${label} must be at least ${iss.minimum} characters long`;
      }
      if (iss.origin === 'array') {
        return `${label} must contain at least ${iss.minimum} ${Number(iss.minimum) === 1 ? 'entry' : 'entries'}`;
      }
      return `${label} must be at least ${iss.minimum}`;
    case 'too_big':
      if (iss.origin === 'string') return `${label} must be at most ${iss.maximum} characters long`;
      if (iss.origin === 'array') {
        const sent = Array.isArray(iss.input) ? `; ${iss.input.length} were sent` : '';
        return `${label} must contain at most ${iss.maximum} entries${sent}`;
      }
      if (iss.origin === 'int') return `${label} is too large`;
      return `${label} must be at most ${iss.maximum}`;
    case 'invalid_key':
      return `${label} has a key that is not valid here`;
    case 'custom':
      if (isRuleParams(iss.params)) return describeRule(iss.params, label);
      return `${label} is not valid`;
    case 'unrecognized_keys':
      // Reported key by key by toValidationIssues; this line is only a fallback.
      return `${label} has fields that are not recognised`;
    default:
      return `${label} is not valid`;
  }
};

/** Message for `error` params of range checks, so both bounds appear in one sentence. */
export function between(min: number, max: number): z.core.$ZodErrorMap {
  return (iss) => `${fieldLabel(iss.path)} must be between ${min} and ${max}`;
}

/**
 * Converts finished zod issues to our flat shape. An unknown-key issue names
 * several keys at the object's path; each key gets its own entry at its own
 * path so a partner sees exactly which field to remove.
 */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[]): ValidationIssue[] {
  const out: ValidationIssue[] = [];
  for (const iss of issues) {
    const path = iss.path as PathSegment[];
    if (iss.code === 'unrecognized_keys') {
      for (const key of iss.keys) {
        out.push({ path: [...path, key], message: `${echo(key)} is not a recognised field` });
      }
    } else {
      out.push({ path, message: iss.message });
    }
  }
  return out;
}

export interface FlattenedErrors {
  formErrors: string[];
  fieldErrors: Record<string, string[]>;
}

/** The `VALIDATION_ERROR` details shape from partner-api.md. Repeated messages for one field are merged. */
export function flattenIssues(
  issues: readonly ValidationIssue[],
  formErrors: string[] = [],
): FlattenedErrors {
  const fieldErrors: Record<string, string[]> = {};
  for (const { path, message } of issues) {
    if (path.length === 0) {
      if (!formErrors.includes(message)) formErrors.push(message);
      continue;
    }
    const key = formatPath(path);
    const list = Object.hasOwn(fieldErrors, key) ? fieldErrors[key] : undefined;
    if (list === undefined) {
      // defineProperty so a partner-chosen key such as "__proto__" stays an ordinary entry.
      Object.defineProperty(fieldErrors, key, {
        value: [message],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else if (!list.includes(message)) list.push(message);
  }
  return { formErrors: withOmitted(formErrors, fieldErrors), fieldErrors: firstFields(fieldErrors) };
}

/** Fields listed in one error at most: enough to fix a body, small enough to read and send. */
export const MAX_FIELD_ERRORS = 100;

function firstFields(fieldErrors: Record<string, string[]>): Record<string, string[]> {
  const keys = Object.keys(fieldErrors);
  if (keys.length <= MAX_FIELD_ERRORS) return fieldErrors;
  for (const key of keys.slice(MAX_FIELD_ERRORS)) delete fieldErrors[key];
  return fieldErrors;
}

function withOmitted(formErrors: string[], fieldErrors: Record<string, string[]>): string[] {
  const omitted = Object.keys(fieldErrors).length - MAX_FIELD_ERRORS;
  if (omitted <= 0) return formErrors;
  return [...formErrors, `${omitted} more fields have problems; the first ${MAX_FIELD_ERRORS} are listed.`];
}
