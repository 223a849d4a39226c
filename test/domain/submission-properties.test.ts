import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkPanel,
  FAMILY_CONDITIONS,
  MARKER_ALIASES,
  MARKER_CODES,
  MARKERS,
  type MarkerCode,
  OUTCOME_IDS,
} from '../../src/domain/submission/index.js';
import { collectPaths } from '../helpers/json-paths.js';
import { build, example, expectPlainMessage, type JsonObject, mutate, parse } from './submission-fixture.js';

/** Mutations that keep the example valid must keep it valid; arbitrary input must never throw. */

const FREQUENCIES = ['none', 'light', 'moderate', 'heavy', 'unknown'] as const;

function panelValues() {
  return fc.record(
    Object.fromEntries(
      MARKER_CODES.map((code) => {
        const { lower, upper } = MARKERS[code].defaultRange;
        return [code, fc.double({ min: lower, max: upper, noNaN: true })];
      }),
    ) as Record<MarkerCode, fc.Arbitrary<number>>,
  );
}

/** A smoking object valid for a subject of `age`. */
function smokingFor(age: number): fc.Arbitrary<JsonObject> {
  const cigs = fc.oneof(fc.double({ min: 0, max: 200, noNaN: true }), fc.constant(-1));
  const former = fc
    .record({
      pastFrequency: fc.option(fc.constantFrom(...FREQUENCIES), { nil: undefined }),
      pastCigsPerDay: fc.option(cigs, { nil: undefined }),
      stopAge: fc.integer({ min: 0, max: age }),
    })
    .chain((s) =>
      (s.pastFrequency === 'heavy'
        ? fc.option(fc.integer({ min: 0, max: s.stopAge }), { nil: undefined })
        : fc.option(fc.constant(-1), { nil: undefined })
      ).map((startAge) => ({ status: 'former', ...s, startAge })),
    );
  const current = fc
    .oneof(
      fc.record({
        currentFrequency: fc.option(fc.constantFrom(...FREQUENCIES), { nil: undefined }),
        currentCigsPerDay: fc.double({ min: 0, max: 200, noNaN: true }),
      }),
      fc.record({
        currentFrequency: fc.constantFrom('none', 'light', 'moderate', 'heavy'),
        currentCigsPerDay: fc.option(cigs, { nil: undefined }),
      }),
    )
    .chain((s) =>
      fc
        .record({
          startAge:
            s.currentFrequency === 'heavy'
              ? fc.option(fc.integer({ min: 0, max: age }), { nil: undefined })
              : fc.option(fc.constant(-1), { nil: undefined }),
          stopAge: fc.option(fc.constant(-1), { nil: undefined }),
        })
        .map((extra) => ({ status: 'current', ...s, ...extra })),
    );
  const quiet = fc.record({ status: fc.constantFrom('never', 'prefer_not_to_say') });
  return fc.oneof(quiet, former, current).map(dropUndefined);
}

function dropUndefined(o: Record<string, unknown>): JsonObject {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

const parent: fc.Arbitrary<JsonObject> = fc
  .record({
    aliveStatus: fc.option(fc.constantFrom('alive', 'deceased', 'unknown'), { nil: undefined }),
    age: fc.integer({ min: 0, max: 120 }),
    conditions: fc.option(
      fc.oneof(
        fc.array(fc.constantFrom(...FAMILY_CONDITIONS.filter((c) => c !== 'none_known' && c !== 'unknown')), {
          maxLength: 12,
        }),
        fc.constantFrom(['none_known'], ['unknown'], ['none_known', 'none_known']),
      ),
      { nil: undefined },
    ),
  })
  .map(({ aliveStatus, age, conditions }) =>
    dropUndefined({
      aliveStatus,
      conditions,
      currentAge: aliveStatus === 'alive' ? age : undefined,
      deathAge: aliveStatus === 'deceased' ? age : undefined,
    }),
  );

describe('properties', () => {
  it('the example parses and normalises with 14 markers in catalogue order', () => {
    const parsed = parse(example());
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const panel = checkPanel(parsed.value);
    expect(panel.ok).toBe(true);
    if (panel.ok) expect(panel.value.markers.map((m) => m.code)).toEqual([...MARKER_CODES]);
  });

  it('any marker values within the default ranges pass', () => {
    fc.assert(
      fc.property(panelValues(), (values) => {
        const body = example();
        for (const [i, code] of MARKER_CODES.entries())
          mutate(body, { [`markers[${i}].value`]: values[code] });
        const parsed = parse(body);
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        const panel = checkPanel(parsed.value);
        expect(panel.ok).toBe(true);
        if (panel.ok)
          expect(panel.value.markers.map((m) => m.value)).toEqual(MARKER_CODES.map((c) => values[c]));
      }),
      { numRuns: 200 },
    );
  });

  it('any marker order, alias and micro-sign spelling passes and normalises to catalogue order', () => {
    const aliasOf = new Map<MarkerCode, string[]>();
    for (const [alias, code] of Object.entries(MARKER_ALIASES))
      aliasOf.set(code, [...(aliasOf.get(code) ?? []), alias]);
    const entry = (code: MarkerCode, i: number) =>
      fc.record({
        code: fc.constantFrom(code, code.toLowerCase(), ...(aliasOf.get(code) ?? [])),
        value: fc.constant((example().markers as Array<{ value: number }>)[i]!.value),
        unit:
          code === 'URATE' ? fc.constantFrom('µmol/L', 'μmol/L', 'umol/L') : fc.constant(MARKERS[code].unit),
      });
    const markers = fc
      .tuple(...MARKER_CODES.map((c, i) => entry(c, i)))
      .chain((list) => fc.shuffledSubarray(list, { minLength: 14 }));
    fc.assert(
      fc.property(markers, (list) => {
        const parsed = parse(build({ markers: list }));
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        const panel = checkPanel(parsed.value);
        expect(panel.ok).toBe(true);
        if (panel.ok) {
          expect(panel.value.markers.map((m) => m.code)).toEqual([...MARKER_CODES]);
          expect(panel.value.markers.find((m) => m.code === 'URATE')?.unit).toBe('µmol/L');
        }
      }),
      { numRuns: 200 },
    );
  });

  it('any marker value outside its range is rejected at that marker', () => {
    const outside = fc.constantFrom(...MARKER_CODES).chain((code) => {
      const { lower, upper } = MARKERS[code].defaultRange;
      return fc.tuple(
        fc.constant(code),
        fc.oneof(
          fc.double({ min: -1e6, max: lower, noNaN: true, maxExcluded: true }),
          fc.double({ min: upper, max: 1e9, noNaN: true, minExcluded: true }),
        ),
      );
    });
    fc.assert(
      fc.property(outside, ([code, value]) => {
        const i = MARKER_CODES.indexOf(code);
        const parsed = parse(build({ [`markers[${i}].value`]: value }));
        expect(parsed.ok).toBe(true);
        if (!parsed.ok) return;
        const panel = checkPanel(parsed.value);
        expect(panel.ok).toBe(false);
        if (!panel.ok) expect(panel.details.map((d) => d.field)).toEqual([`markers[${i}].value`]);
      }),
      { numRuns: 200 },
    );
  });

  it('any valid age with a smoking history consistent with it parses', () => {
    const subject = fc
      .integer({ min: 0, max: 120 })
      .chain((age) => fc.tuple(fc.constant(age), smokingFor(age)));
    fc.assert(
      fc.property(subject, fc.constantFrom('male', 'female'), ([age, smoking], sex) => {
        const result = parse(
          build({
            'subject.demographics.ageYears': age,
            'subject.demographics.sexAtBirth': sex,
            'subject.history.smoking': smoking,
          }),
        );
        if (!result.ok) expect.fail(JSON.stringify({ age, smoking, error: result.error }));
      }),
      { numRuns: 500 },
    );
  });

  it('any birthYear implying an age of 0..120 at the reference date parses, with or without a consistent ageYears', () => {
    const cases = fc
      .record({
        referenceYear: fc.integer({ min: 2000, max: 2100 }),
        age: fc.integer({ min: 0, max: 120 }),
        ageOffset: fc.option(fc.integer({ min: -1, max: 1 }), { nil: undefined }),
      })
      .filter(({ referenceYear, age }) => referenceYear - age >= 1900);
    fc.assert(
      fc.property(cases, ({ referenceYear, age, ageOffset }) => {
        const ageYears = ageOffset === undefined ? undefined : Math.min(120, Math.max(0, age + ageOffset));
        const body = build({
          'subject.demographics': dropUndefined({
            sexAtBirth: 'female',
            birthYear: referenceYear - age,
            ageYears,
          }),
          'subject.history.smoking': { status: 'never' },
          'sourceMetadata.sourceTimestamp': `${referenceYear}-07-01T12:00:00Z`,
        });
        const result = parse(body);
        if (!result.ok) expect.fail(JSON.stringify(result.error));
      }),
      { numRuns: 300 },
    );
  });

  it('any valid family history parses and its conditions are merged', () => {
    fc.assert(
      fc.property(parent, parent, (father, mother) => {
        const result = parse(build({ 'subject.familyHistory': { father, mother } }));
        if (!result.ok) expect.fail(JSON.stringify({ father, mother, error: result.error }));
        const panel = checkPanel(result.value);
        expect(panel.ok).toBe(true);
        if (!panel.ok) return;
        for (const p of [
          panel.value.subject.familyHistory?.father,
          panel.value.subject.familyHistory?.mother,
        ]) {
          const conditions = p?.conditions ?? [];
          expect(new Set(conditions).size).toBe(conditions.length);
          expect(p).not.toHaveProperty('deathAge', -1);
          expect(p).not.toHaveProperty('currentAge', -1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('any list of accepted outcome names normalises to distinct public ids', () => {
    const names = fc.array(
      fc.constantFrom(
        ...OUTCOME_IDS,
        'wellbeing.kidney',
        'renal.wellbeing',
        'cardiovascular_wellbeing_10y',
        'kidney_wellbeing_10y',
        'cognitive.wellbeing',
      ),
      { maxLength: 8 },
    );
    fc.assert(
      fc.property(names, (requestedOutcomes) => {
        const result = parse(build({ 'options.requestedOutcomes': requestedOutcomes }));
        if (!result.ok) expect.fail(JSON.stringify(result.error));
        const panel = checkPanel(result.value);
        if (!panel.ok) expect.fail(JSON.stringify(panel.details));
        const outcomes = panel.value.options.requestedOutcomes;
        expect(new Set(outcomes).size).toBe(outcomes.length);
        for (const o of outcomes) expect(OUTCOME_IDS).toContain(o);
        if (requestedOutcomes.length === 0) expect(outcomes).toHaveLength(4);
      }),
      { numRuns: 200 },
    );
  });

  it('arbitrary JSON never throws and always yields plain messages', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (body) => {
        const result = parse(body);
        expect(result.ok).toBe(false);
        if (result.ok) return;
        for (const m of result.error.formErrors) expectPlainMessage(m);
        for (const ms of Object.values(result.error.fieldErrors)) for (const m of ms) expectPlainMessage(m);
      }),
      { numRuns: 300 },
    );
  });

  it('replacing any field of the example with arbitrary JSON never throws', () => {
    const paths = collectPaths(example());
    fc.assert(
      fc.property(fc.constantFrom(...paths), fc.jsonValue({ maxDepth: 2 }), (path, value) => {
        const result = parse(build({ [path]: value }));
        if (!result.ok) {
          for (const ms of Object.values(result.error.fieldErrors)) for (const m of ms) expectPlainMessage(m);
        } else {
          const panel = checkPanel(result.value);
          if (!panel.ok) for (const d of panel.details) expectPlainMessage(d.message);
        }
      }),
      { numRuns: 500 },
    );
  });
});
