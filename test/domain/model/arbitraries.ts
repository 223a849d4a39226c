import fc from 'fast-check';
import {
  FAMILY_CONDITIONS,
  MARKER_CODES,
  MARKERS,
  type MarkerCode,
  type NormalisedSubmission,
} from '../../../src/domain/submission/index.js';
import { expectPanelOk, type JsonObject } from '../submission-fixture.js';
import { ALL_OUTCOMES, body, UNSET } from './fixture.js';

/** fast-check generators of valid submissions, built through the real parser and panel check. */

const FREQUENCIES = ['none', 'light', 'moderate', 'heavy', 'unknown'] as const;

const ETHNICITIES = [
  'white_british',
  'Black Caribbean',
  'hispanic',
  'Indian',
  'american_indian',
  'chinese',
  'Native Hawaiian',
  'mixed',
];

function dropUndefined(o: Record<string, unknown>): JsonObject {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

const opt = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });

/** A smoking object valid for a subject of `age` (partner-api.md smoking rules). */
export function smokingFor(age: number): fc.Arbitrary<JsonObject> {
  const count = fc.double({ min: 0, max: 60, noNaN: true });
  const former = fc
    .record({
      pastFrequency: opt(fc.constantFrom(...FREQUENCIES)),
      pastCigsPerDay: opt(count),
      stopAge: fc.integer({ min: 0, max: age }),
    })
    .chain((s) =>
      (s.pastFrequency === 'heavy'
        ? opt(fc.integer({ min: 0, max: s.stopAge }))
        : fc.constant(undefined)
      ).map((startAge) => dropUndefined({ status: 'former', ...s, startAge })),
    );
  const current = fc
    .record({
      currentFrequency: fc.constantFrom('none', 'light', 'moderate', 'heavy'),
      currentCigsPerDay: opt(count),
    })
    .chain((s) =>
      (s.currentFrequency === 'heavy' ? opt(fc.integer({ min: 0, max: age })) : fc.constant(undefined)).map(
        (startAge) => dropUndefined({ status: 'current', ...s, startAge }),
      ),
    );
  const quiet = fc.record({ status: fc.constantFrom('never', 'prefer_not_to_say') });
  return fc.oneof(quiet, former, current);
}

const parent: fc.Arbitrary<JsonObject> = fc
  .record({
    aliveStatus: fc.constantFrom('alive', 'deceased', 'unknown'),
    age: fc.integer({ min: 20, max: 110 }),
    conditions: fc.uniqueArray(
      fc.constantFrom(...FAMILY_CONDITIONS.filter((c) => c !== 'none_known' && c !== 'unknown')),
      { maxLength: 4 },
    ),
  })
  .map(({ aliveStatus, age, conditions }) =>
    dropUndefined({
      aliveStatus,
      currentAge: aliveStatus === 'alive' ? age : undefined,
      deathAge: aliveStatus === 'deceased' ? age : undefined,
      conditions,
    }),
  );

export type Panel = Record<MarkerCode, number>;

/** Marker values within each code's default accepted range, skewed towards typical adult values. */
export const panel: fc.Arbitrary<Panel> = fc.record(
  Object.fromEntries(
    MARKER_CODES.map((code) => {
      const { lower, upper } = MARKERS[code].defaultRange;
      return [code, fc.double({ min: lower, max: upper, noNaN: true, noDefaultInfinity: true })];
    }),
  ) as Record<MarkerCode, fc.Arbitrary<number>>,
);

export interface Profile {
  age: number;
  changes: Record<string, unknown>;
  markers: Panel | null;
}

/** Everything but the markers and smoking, as example-body changes. */
export const profile: fc.Arbitrary<Profile> = fc
  .record({
    age: fc.oneof(fc.integer({ min: 18, max: 95 }), fc.integer({ min: 0, max: 120 })),
    sex: fc.constantFrom('male', 'female'),
    ethnicity: opt(fc.constantFrom(...ETHNICITIES)),
    educationYears: opt(fc.integer({ min: 0, max: 40 })),
    measurements: opt(
      fc.record({
        weightKg: opt(fc.double({ min: 0, max: 300, noNaN: true })),
        heightCm: opt(fc.double({ min: 0, max: 250, noNaN: true })),
      }),
    ),
    overallHealth: opt(fc.constantFrom('excellent', 'very_good', 'good', 'fair', 'poor', 'unknown')),
    conditions: opt(
      fc.record({
        hasDiabetes: opt(fc.boolean()),
        hasDementia: opt(fc.boolean()),
        hasCardioCerebrovascular: opt(fc.boolean()),
        hasLungCancer: opt(fc.boolean()),
        hasKidneyDisease: opt(fc.boolean()),
      }),
    ),
    father: opt(parent),
    mother: opt(parent),
    markers: fc.option(panel, { nil: null, freq: 5 }),
  })
  .map((p) => ({
    age: p.age,
    markers: p.markers,
    changes: {
      'subject.demographics': dropUndefined({
        sexAtBirth: p.sex,
        ageYears: p.age,
        ethnicity: p.ethnicity,
        educationYears: p.educationYears,
      }),
      'subject.measurements': p.measurements === undefined ? UNSET : dropUndefined(p.measurements),
      'subject.history': dropUndefined({
        overallHealth: p.overallHealth,
        conditions: p.conditions === undefined ? undefined : dropUndefined(p.conditions),
      }),
      'subject.familyHistory': dropUndefined({ father: p.father, mother: p.mother }),
    },
  }));

/** A normalised submission for `profile` with `smoking` (absent when undefined) and `markers`. */
export function submissionOf(
  p: Profile,
  smoking: JsonObject | undefined,
  markers = p.markers,
): NormalisedSubmission {
  const changes: Record<string, unknown> = { ...p.changes, 'options.requestedOutcomes': ALL_OUTCOMES };
  if (smoking !== undefined) changes['subject.history.smoking'] = smoking;
  const b = body(changes);
  if (markers === null) {
    delete b.markers;
    b.reportDocuments = [
      { documentType: 'lab_report', effectiveAt: '2026-11-01', summaryText: 'Routine check.' },
    ];
  } else {
    b.markers = MARKER_CODES.map((code) => ({ code, value: markers[code], unit: MARKERS[code].unit }));
  }
  return expectPanelOk(b);
}

/** A valid submission of any shape: profile, smoking (or none) and markers (or documents only). */
export const anySubmission: fc.Arbitrary<NormalisedSubmission> = profile.chain((p) =>
  opt(smokingFor(p.age)).map((s) => submissionOf(p, s)),
);
