import { type FlattenedErrors, formatPath } from '../domain/submission/index.js';
import { findDuplicateKeys } from './duplicate-keys.js';

/**
 * The one reader of submission JSON text: ingest reads a request's body with it at the door, and
 * the worker's check of the stored body reads it again (`checkStoredSubmission`), so whatever the
 * door accepts the pipeline reads identically (issue 12: a body with a byte-order mark was once
 * accepted, then failed in the worker). The HTTP layer reads the other JSON bodies it takes with
 * it too. Beyond `JSON.parse` it decides what JSON leaves open or what our stores cannot keep:
 * - a leading UTF-8 byte-order mark is ignored (RFC 8259 §8.1 allows a parser to);
 * - a key repeated in one object is an error (RFC 8259 leaves the meaning open; I-JSON forbids it);
 * - a string or key with an unpaired UTF-16 surrogate (`"\udc00"`) or a NUL character is an
 *   error at its path: neither is text, neither survives a round trip through UTF-8 or a
 *   PostgreSQL `text` column, and both crashed later steps;
 * - nesting deeper than `MAX_JSON_DEPTH` is an error, so no later recursive step can overflow,
 *   and so is a body of more than `MAX_JSON_VALUES` values, so no later step costs much;
 * - `__proto__` keys and `constructor.prototype` are errors, so no later merge can pollute a
 *   prototype (what secure-json-parse guarded before).
 */
export const MAX_JSON_DEPTH = 32;
/**
 * Values (objects, arrays, strings, numbers, booleans, nulls) one body may hold. A full
 * submission holds a few hundred; within the 1 MiB body limit a hostile one could hold hundreds
 * of thousands, and checking each against the schema (and describing each error) cost up to
 * 0.6 s of CPU per request.
 */
export const MAX_JSON_VALUES = 4096;

export type JsonTextResult = { ok: true; value: unknown } | { ok: false; errors: FlattenedErrors };

const BOM = 0xfeff;

export function readJsonText(input: string): JsonTextResult {
  const text = input.charCodeAt(0) === BOM ? input.slice(1) : input;
  if (text.trim() === '') return formError('The request body is empty; send a JSON object.');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return formError(`The request body is not valid JSON${where(text, error)}.`);
  }
  // Unpaired surrogates and NUL can only be written as \u escapes: raw text decoded from UTF-8
  // holds neither. Without escapes, the cheap checks below are exact.
  const escaped = text.includes('\\u');
  // A quote written as \u0022 is a quote in the value with none in the text.
  const unicodeQuote = escaped && text.includes('\\u0022');
  // A string holds a quote only if the text escapes one, as \" or \u0022.
  const shape = inspect(value, escaped, unicodeQuote || text.includes('\\"'));
  if (shape.tooDeep) {
    return formError(`The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);
  }
  if (shape.values > MAX_JSON_VALUES) {
    return formError(
      `The request body holds more than ${MAX_JSON_VALUES} values (objects, arrays, strings, numbers); a submission needs a few hundred.`,
    );
  }
  // No prototype: a field named `__proto__` must become a key, not the object's prototype.
  const fieldErrors = Object.create(null) as Record<string, string[]>;
  if (shape.badStrings) collectBadStrings(value, [], fieldErrors);
  // Every raw quote character in valid JSON opens or closes a key or string, or is an escaped
  // quote \" (which decodes to one quote). So unless a quote is written as \u0022, the parsed
  // value accounts for every quote in the text unless a repeated key's earlier member was
  // dropped by the parse. Other \u escapes (one key spelled two ways) change nothing: the parse
  // drops the member all the same.
  if (unicodeQuote || countQuotes(text) !== shape.quotes) {
    for (const { path, key } of findDuplicateKeys(text)) {
      addFieldError(
        fieldErrors,
        path,
        `The key ${JSON.stringify(key)} appears more than once in this object.`,
      );
    }
  }
  if (Object.keys(fieldErrors).length > 0) {
    return { ok: false, errors: { formErrors: [], fieldErrors } };
  }
  return { ok: true, value };
}

function formError(message: string): JsonTextResult {
  return { ok: false, errors: { formErrors: [message], fieldErrors: {} } };
}

/** Where `JSON.parse` stopped, as line and column, when V8 says (never echoing the body). */
function where(text: string, error: unknown): string {
  const match = error instanceof Error ? /position (\d+)/.exec(error.message) : null;
  if (!match) return '';
  const position = Math.min(Number(match[1]), text.length);
  const before = text.slice(0, position);
  const line = before.split('\n').length;
  const column = position - before.lastIndexOf('\n');
  return ` (line ${line}, column ${column})`;
}

interface Shape {
  /** Quote characters the text needs to hold this value: two per key and string, plus inner quotes. */
  quotes: number;
  values: number;
  tooDeep: boolean;
  /** Some string or key is not well-formed text, or a key is a prototype key. */
  badStrings: boolean;
}

/**
 * One pass over the parsed value. Recursion is safe: it never goes deeper than
 * `MAX_JSON_DEPTH`, whatever the nesting of the text (`JSON.parse` itself does not recurse).
 */
function inspect(root: unknown, escaped: boolean, quotesInStrings: boolean): Shape {
  const shape: Shape = { quotes: 0, values: 0, tooDeep: false, badStrings: false };
  visit(root, 0, escaped, quotesInStrings, shape);
  return shape;
}

function visit(value: unknown, depth: number, escaped: boolean, quoted: boolean, shape: Shape): void {
  shape.values += 1;
  if (typeof value === 'string') {
    shape.quotes += quoted ? 2 + innerQuotes(value) : 2;
    if (escaped && !isText(value)) shape.badStrings = true;
    return;
  }
  if (typeof value !== 'object' || value === null || shape.tooDeep || shape.values > MAX_JSON_VALUES) return;
  if (depth >= MAX_JSON_DEPTH) {
    shape.tooDeep = true;
    return;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) visit(value[i], depth + 1, escaped, quoted, shape);
    return;
  }
  const object = value as Record<string, unknown>;
  for (const key in object) {
    const item = object[key];
    shape.quotes += quoted ? 2 + innerQuotes(key) : 2;
    if ((escaped && !isText(key)) || isPrototypeKey(key, item)) shape.badStrings = true;
    visit(item, depth + 1, escaped, quoted, shape);
  }
}

function collectBadStrings(value: unknown, path: PropertyKey[], out: Record<string, string[]>): void {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    if (problem) addFieldError(out, path, problem);
  } else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) collectBadStrings(item, [...path, i], out);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const keyProblem = isPrototypeKey(key, item)
        ? `The key ${JSON.stringify(key)} is not allowed.`
        : textProblem(key)?.replace('This value', 'This key');
      if (keyProblem) addFieldError(out, [...path, key], keyProblem);
      collectBadStrings(item, [...path, key], out);
    }
  }
}

function textProblem(value: string): string | undefined {
  if (!value.isWellFormed()) {
    return 'This value is not valid Unicode text: it contains an unpaired UTF-16 surrogate escape (\\ud800 to \\udfff).';
  }
  if (value.includes('\u0000')) return 'This value must not contain the NUL character (\\u0000).';
  return undefined;
}

function isText(value: string): boolean {
  return value.isWellFormed() && !value.includes('\u0000');
}

function isPrototypeKey(key: string, value: unknown): boolean {
  if (key.length !== 9 && key.length !== 11) return false;
  if (key === '__proto__') return true;
  return key === 'constructor' && typeof value === 'object' && value !== null && 'prototype' in value;
}

function addFieldError(out: Record<string, string[]>, path: readonly PropertyKey[], message: string): void {
  const field = formatPath(path) || '(body)';
  const list = out[field] ?? [];
  if (!list.includes(message)) list.push(message);
  out[field] = list;
}

function innerQuotes(value: string): number {
  let count = 0;
  for (let i = value.indexOf('"'); i !== -1; i = value.indexOf('"', i + 1)) count++;
  return count;
}

function countQuotes(text: string): number {
  return innerQuotes(text);
}
