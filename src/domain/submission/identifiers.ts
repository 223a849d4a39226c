/**
 * Heuristic detection of direct identifiers in partner-supplied text and
 * object keys. Submissions must be de-identified; these checks catch the
 * common slips (contact details, record numbers, postal details) early.
 *
 * Known limits, deliberately accepted:
 * - Personal names in free text cannot be detected reliably (no capitalised-
 *   word heuristic is safe next to drug, place and eponym names), so they are
 *   not looked for. Keys naming a name field are caught by findIdentifierKey.
 * - Only UK/US/NANP conventions are recognised: other countries' phone
 *   layouts, postcodes and national numbers may pass, as do dates of birth.
 * - Street addresses need a house number, one to four words and a street
 *   suffix; words like "days", "tablets", "the" break the chain so dosing
 *   text ("2 tablets on the way") passes. Addresses without a number or suffix
 *   pass; shorthand such as "q4 6hr" can look like a UK postcode.
 * - Shape-based patterns cannot tell an identifier from a look-alike: a
 *   batch number shaped like a ZIP+4 ("12345-6789") or a spaced 3-3-4 number
 *   is flagged, which is the safer mistake.
 * - A 10-digit number is treated as an NHS number only when its modulus-11
 *   check digit is valid; UK National Insurance numbers are caught only after
 *   a keyword ("NI number", "national insurance number").
 * - Record numbers need a keyword (MRN, patient id, NHS number, ...) and at
 *   least four digits, so pseudonymous references like "patient-42" or
 *   "sub-000123" pass, as do "NHS 111" and "NHS 2024 guidance".
 * Every quantifier is bounded so a 20,000-character summary scans in linear time.
 */

import { LRUCache } from 'lru-cache';

export type DirectIdentifierKind =
  | 'e-mail address'
  | 'phone number'
  | 'postal address'
  | 'postal code'
  | 'record number'
  | 'national identifier';

const EMAIL = /[\w.%+-]{1,64}@[a-z\d-]{1,63}(?:\.[a-z\d-]{1,63}){0,8}\.[a-z]{2,24}(?![a-z\d-])/i;

const US_SSN = /(?<![\w-])\d{3}-\d{2}-\d{4}(?![\w-])/;
const NHS_NUMBER = /(?<![\w-])(\d{3})( ?)(\d{3})\2(\d{4})(?![\w-])/g;

const RECORD_NUMBER =
  /\b(?:mrn|medical\s{1,3}record|social\s{1,3}security|national\s{1,3}insurance|ssn|(?:record|patient|hospital|case|chart|nhs|chi|ni|insurance|member|medicare|medicaid)\s{0,3}(?:id|number|no\.?|#))(?:\s{1,3}(?:number|no\.?|#))?\s{0,3}[:#=-]?\s{0,3}(?:[a-z]{1,3}\s?)?\d(?:[\s-]?\d){3,}/i;

const INTERNATIONAL_PHONE = /\+[\s(]{0,2}\d(?:[\s().-]{0,3}\d){8,14}(?!\d)/;
const NANP_PHONE = /(?<![\w-])(?:\(\d{3}\)\s?|\d{3}[-.\s])\d{3}[-.\s]\d{4}(?![\w-])/;
// Whole-match digit count (10 or 11) is checked separately.
const UK_PHONE = /(?<![\w+.-])0\d{2,4}[\s-]?\d{3,4}[\s-]?\d{3,4}(?![\w-])/g;

// Inward-code letters exclude C, I, K, M, O and V, as Royal Mail does; that
// also keeps dosing shorthand like "x2 3ml" from matching.
const UK_POSTCODE = /\b[a-z]{1,2}\d[a-z\d]?\s{1,2}\d[abd-hjlnp-uw-z]{2}\b/i;
const US_ZIP_PLUS_4 = /(?<![\w-])\d{5}-\d{4}(?![\w-])/;
const POSTAL_CODE_KEYWORD =
  /\b(?:zip|zip\s?code|post\s?code|postal\s{1,3}code)\b\s{0,3}[:#]?\s{0,3}[a-z]{0,2}\d[a-z\d]{1,4}/i;

const NOT_STREET_WORDS =
  'the|a|an|and|or|of|on|in|at|by|to|for|from|with|per|ago|than|up|down|over|under|after|before|every|each|more|less|x|times?|days?|weeks?|wks?|months?|years?|yrs?|hours?|hrs?|minutes?|mins?|seconds?|secs?|mg|mcg|g|kg|ml|l|units?|tablets?|tabs?|capsules?|doses?|puffs?|drinks?|cigarettes?|cigs?|miles?|km|m|steps?|flights?|cups?|glasses?|servings?|nights?|episodes?|sessions?|visits?|children|kids?|people';
const STREET_SUFFIXES =
  'street|st|road|rd|avenue|ave|lane|ln|drive|dr|boulevard|blvd|close|cl|court|ct|way|place|pl|terrace|terr|crescent|cres|gardens|gdns|square|sq|parkway|pkwy|highway|hwy|mews|grove|row';
const STREET_ADDRESS = new RegExp(
  `(?<![\\w./-])\\d{1,5}[a-z]?\\s{1,3}(?:(?!(?:${NOT_STREET_WORDS})\\b)[a-z][a-z'.-]{0,30}\\s{1,3}){1,4}(?:${STREET_SUFFIXES})\\b`,
  'i',
);

/** NHS numbers carry a modulus-11 check digit; see NHS Data Dictionary. */
function isValidNhsNumber(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(digits[i]) * (10 - i);
  const check = 11 - (sum % 11);
  if (check === 10) return false;
  return (check === 11 ? 0 : check) === Number(digits[9]);
}

function hasNhsNumber(text: string): boolean {
  for (const m of text.matchAll(NHS_NUMBER)) {
    if (isValidNhsNumber(`${m[1]}${m[3]}${m[4]}`)) return true;
  }
  return false;
}

function hasUkPhone(text: string): boolean {
  for (const m of text.matchAll(UK_PHONE)) {
    const digits = m[0].replace(/\D/g, '').length;
    if (digits === 10 || digits === 11) return true;
  }
  return false;
}

/**
 * Returns the first kind of direct identifier found in `text`, checked in a
 * fixed order (most specific first), or null when none is found.
 */
export function findDirectIdentifier(text: string): DirectIdentifierKind | null {
  if (text.includes('@') && EMAIL.test(text)) return 'e-mail address';
  if (US_SSN.test(text) || hasNhsNumber(text)) return 'national identifier';
  if (RECORD_NUMBER.test(text)) return 'record number';
  if (INTERNATIONAL_PHONE.test(text) || NANP_PHONE.test(text) || hasUkPhone(text)) return 'phone number';
  if (STREET_ADDRESS.test(text)) return 'postal address';
  if (UK_POSTCODE.test(text) || US_ZIP_PLUS_4.test(text) || POSTAL_CODE_KEYWORD.test(text))
    return 'postal code';
  return null;
}

/** Key words that name a direct identifier on their own. */
const IDENTIFIER_KEY_WORDS: ReadonlySet<string> = new Set([
  'surname',
  'forename',
  'firstname',
  'lastname',
  'fullname',
  'givenname',
  'middlename',
  'maidenname',
  'nickname',
  'fname',
  'lname',
  'email',
  'phone',
  'telephone',
  'tel',
  'mobile',
  'cellphone',
  'fax',
  'address',
  'ipaddress',
  'street',
  'postcode',
  'zip',
  'zipcode',
  'ssn',
  'nino',
  'mrn',
  'dob',
  'birthdate',
  'birthday',
  'passport',
]);

/** Consecutive key words that together name a direct identifier. */
const IDENTIFIER_KEY_PHRASES: readonly (readonly string[])[] = [
  ['e', 'mail'],
  ['postal', 'code'],
  ['post', 'code'],
  ['social', 'security'],
  ['nhs', 'number'],
  ['nhs', 'no'],
  ['nhs', 'id'],
  ['chi', 'number'],
  ['ni', 'number'],
  ['medical', 'record'],
  ['record', 'number'],
  ['record', 'no'],
  ['record', 'id'],
  ['patient', 'id'],
  ['patient', 'number'],
  ['patient', 'no'],
  ['hospital', 'id'],
  ['hospital', 'number'],
  ['hospital', 'no'],
  ['date', 'of', 'birth'],
  ['birth', 'date'],
  ['birth', 'day'],
  ['driver', 'licence'],
  ['driver', 'license'],
  ['drivers', 'licence'],
  ['drivers', 'license'],
  ['driving', 'licence'],
  ['driving', 'license'],
  ['licence', 'number'],
  ['license', 'number'],
  ['national', 'id'],
  ['national', 'identifier'],
  ['national', 'insurance'],
  ['insurance', 'number'],
  ['insurance', 'no'],
  ['insurance', 'id'],
  ['medicare', 'number'],
  ['medicaid', 'number'],
  ['member', 'id'],
  ['member', 'number'],
];

/**
 * `name` is only an identifier when it is a person's name: alone, or next to
 * one of these words. So `firstName` and `patientName` are flagged, while
 * `drugName` or `labName` are not.
 */
const PERSON_NAME_QUALIFIERS: ReadonlySet<string> = new Set([
  'first',
  'last',
  'full',
  'given',
  'middle',
  'family',
  'maiden',
  'legal',
  'preferred',
  'birth',
  'nick',
  'sur',
  'fore',
  'christian',
  'patient',
  'subject',
  'person',
  'participant',
  'mother',
  'father',
  'parent',
  'guardian',
  'spouse',
  'kin',
  'contact',
  'user',
  'real',
]);

/** Splits camelCase, PascalCase, snake_case, kebab-case and spaced keys into lower-case words. */
export function keyWords(key: string): string[] {
  return key
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([a-zA-Z])(\d)/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z\d]+/)
    .filter((w) => w.length > 0);
}

function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  outer: for (let i = 0; i + phrase.length <= words.length; i++) {
    for (let j = 0; j < phrase.length; j++) {
      if (words[i + j] !== phrase[j]) continue outer;
    }
    return true;
  }
  return false;
}

/**
 * Verdicts on keys already read. A partner sends the same questionnaire and extension keys with
 * every submission, and reading a key's words costs more than the rest of its checks; the
 * bounds keep a stream of ever-new keys from holding memory.
 */
const keyVerdicts = new LRUCache<string, boolean>({ max: 4096 });
const MAX_REMEMBERED_KEY_LENGTH = 64;

/**
 * Whether an object key names a direct identifier (`firstName`, `e-mail`,
 * `nhs_number`, `dateOfBirth`, ...). Matching is by whole words, so
 * `addressed`, `nameplate` and `biomarkerVersion` pass. `visitNumber` and
 * `subjectId` pass too: a visit sequence or a de-identified subject reference
 * is not a direct identifier.
 */
export function findIdentifierKey(key: string): boolean {
  const known = keyVerdicts.get(key);
  if (known !== undefined) return known;
  const verdict = namesIdentifier(key);
  if (key.length <= MAX_REMEMBERED_KEY_LENGTH) keyVerdicts.set(key, verdict);
  return verdict;
}

function namesIdentifier(key: string): boolean {
  const words = keyWords(key);
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (IDENTIFIER_KEY_WORDS.has(word)) return true;
    if (word === 'name') {
      if (words.length === 1) return true;
      const before = words[i - 1];
      const after = words[i + 1];
      if (before !== undefined && PERSON_NAME_QUALIFIERS.has(before)) return true;
      if (after !== undefined && PERSON_NAME_QUALIFIERS.has(after)) return true;
    }
  }
  return IDENTIFIER_KEY_PHRASES.some((phrase) => containsPhrase(words, phrase));
}

/** Stops a pathological key bag from producing an unbounded error list. */
export const MAX_IDENTIFIER_KEY_REPORTS = 20;

/**
 * Paths (relative to `value`) of every key, at any depth and inside arrays,
 * that names a direct identifier; breadth-first and iterative so deeply
 * nested input cannot exhaust the stack.
 */
export function findIdentifierKeyPaths(value: unknown): (string | number)[][] {
  const found: (string | number)[][] = [];
  const queue: { node: unknown; path: (string | number)[] }[] = [{ node: value, path: [] }];
  const seen = new Set<object>();
  for (let i = 0; i < queue.length && found.length < MAX_IDENTIFIER_KEY_REPORTS; i++) {
    const { node, path } = queue[i]!;
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      node.forEach((item, index) => {
        queue.push({ node: item, path: [...path, index] });
      });
      continue;
    }
    for (const [key, child] of Object.entries(node)) {
      const childPath = [...path, key];
      if (findIdentifierKey(key)) {
        found.push(childPath);
        if (found.length >= MAX_IDENTIFIER_KEY_REPORTS) break;
      } else {
        queue.push({ node: child, path: childPath });
      }
    }
  }
  return found;
}
