import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import {
  checkPanel,
  type NormalisedSubmission,
  type PanelIssue,
  type ParsedSubmission,
  parseSubmission,
} from '../../src/domain/submission/index.js';

/** Shared helpers for the domain tests: the spec's example body, path-based mutation, and assertions. */

export type JsonObject = Record<string, unknown>;

// The repository keeps a copy of the spec example; the shared spec folder is the source it was taken from.
const EXAMPLE_CANDIDATES = [
  path.resolve(import.meta.dirname, '../../examples/submission.json'),
  '/work/shared/spec/examples/submission.json',
];
const examplePath = EXAMPLE_CANDIDATES.find((p) => existsSync(p));
if (examplePath === undefined) throw new Error('examples/submission.json not found');
const EXAMPLE: JsonObject = JSON.parse(readFileSync(examplePath, 'utf8')) as JsonObject;

/** A reference date after the example's sourceTimestamp. */
export const NOW = new Date('2026-12-01T00:00:00Z');

export function example(): JsonObject {
  return structuredClone(EXAMPLE);
}

/** Marks a key for deletion in `mutate`. */
export const UNSET = Symbol('unset');

type Segment = string | number;

function parsePath(p: string): Segment[] {
  const out: Segment[] = [];
  for (const part of p.split('.')) {
    const m = /^([^[]*)((?:\[\d+\])*)$/.exec(part);
    if (m === null) throw new Error(`bad path ${p}`);
    if (m[1] !== '') out.push(m[1]!);
    for (const idx of m[2]!.matchAll(/\[(\d+)\]/g)) out.push(Number(idx[1]));
  }
  return out;
}

type Container = Record<string | number, unknown>;

/**
 * Applies `{ 'subject.demographics.ageYears': 121, 'markers[0].code': 'ALB', 'x.y': UNSET }`
 * to `body` in order, creating objects along the way.
 */
export function mutate(body: JsonObject, changes: Record<string, unknown>): JsonObject {
  for (const [p, value] of Object.entries(changes)) {
    const segments = parsePath(p);
    let node = body as Container;
    for (const seg of segments.slice(0, -1)) {
      if (typeof node[seg] !== 'object' || node[seg] === null) node[seg] = {};
      node = node[seg] as Container;
    }
    const last = segments.at(-1)!;
    if (value === UNSET) delete node[last];
    else node[last] = structuredClone(value);
  }
  return body;
}

/** The example with `changes` applied. */
export function build(changes: Record<string, unknown> = {}): JsonObject {
  return mutate(example(), changes);
}

/** Reads a value at a dotted path, for building expectations from the body. */
export function at(body: JsonObject, p: string): unknown {
  let node: unknown = body;
  for (const seg of parsePath(p)) node = (node as Container | undefined)?.[seg];
  return node;
}

export function parse(body: unknown, now: Date = NOW) {
  return parseSubmission(body, { now });
}

/** A plain partner-facing sentence: non-empty, single line, no zod jargon, not an echo of a long value. */
export function expectPlainMessage(message: string | undefined): void {
  expect(message).toBeTypeOf('string');
  const m = message ?? '';
  expect(m.trim().length).toBeGreaterThan(5);
  expect(m.length).toBeLessThan(400);
  expect(m).not.toMatch(
    /\n|Invalid input|expected \w+, received|Too (big|small)|ZodError|undefined|\[object/,
  );
}

export function expectAccepted(body: unknown, now: Date = NOW): ParsedSubmission {
  const result = parse(body, now);
  if (!result.ok) expect.fail(`expected the body to parse, got ${JSON.stringify(result.error, null, 2)}`);
  return result.value;
}

/** Asserts a VALIDATION_ERROR with an entry at `key`; returns that key's messages. */
export function expectRejectedAt(body: unknown, key: string, now: Date = NOW): string[] {
  const result = parse(body, now);
  if (result.ok) expect.fail(`expected a validation error at ${key}, but the body parsed`);
  const { fieldErrors, formErrors } = result.error;
  expect(Object.keys(fieldErrors), JSON.stringify(fieldErrors, null, 2)).toContain(key);
  for (const messages of Object.values(fieldErrors)) for (const m of messages) expectPlainMessage(m);
  for (const m of formErrors) expectPlainMessage(m);
  return fieldErrors[key] ?? [];
}

export function panelOf(body: unknown) {
  return checkPanel(expectAccepted(body));
}

export function expectPanelOk(body: unknown): NormalisedSubmission {
  const result = panelOf(body);
  if (!result.ok) expect.fail(`expected the panel to pass, got ${JSON.stringify(result.details, null, 2)}`);
  return result.value;
}

/** Asserts a SUBMISSION_VALIDATION_ERROR with an entry for `field`; returns that field's messages. */
export function expectPanelRejectedAt(body: unknown, field: string): string[] {
  const result = panelOf(body);
  if (result.ok) expect.fail(`expected a panel error at ${field}, but the panel passed`);
  const details: PanelIssue[] = result.details;
  expect(
    details.map((d) => d.field),
    JSON.stringify(details, null, 2),
  ).toContain(field);
  for (const d of details) expectPlainMessage(d.message);
  return details.filter((d) => d.field === field).map((d) => d.message);
}
