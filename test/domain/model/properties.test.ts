import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type ModelResult, scoreSubmission } from '../../../src/domain/model/index.js';
import type { MarkerCode } from '../../../src/domain/submission/index.js';
import { MARKERS } from '../../../src/domain/submission/index.js';
import { anySubmission, panel, profile, submissionOf } from './arbitraries.js';
import { NOW } from './fixture.js';

const score = (s: Parameters<typeof scoreSubmission>[0]) => scoreSubmission(s, { now: NOW });

function allNumbers(value: unknown, out: number[] = []): number[] {
  if (typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const v of value) allNumbers(v, out);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value)) allNumbers(v, out);
  return out;
}

function scores(r: ModelResult): Record<string, number> {
  return Object.fromEntries(r.outcomes.map((o) => [o.outcomeId, o.score]));
}

describe('properties over valid submissions', () => {
  it('every score is finite and in [0, 1]; every number in the result is finite', () => {
    fc.assert(
      fc.property(anySubmission, (sub) => {
        const r = score(sub);
        expect(r.outcomes).toHaveLength(5);
        for (const o of r.outcomes) {
          expect(Number.isFinite(o.score)).toBe(true);
          expect(o.score).toBeGreaterThanOrEqual(0);
          expect(o.score).toBeLessThanOrEqual(1);
          expect(o.tier === 'unknown').toBe(o.status === 'failed');
        }
        for (const n of allNumbers(r)) expect(Number.isFinite(n)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('is deterministic: the same input gives a deep-equal result and identical JSON bytes', () => {
    fc.assert(
      fc.property(anySubmission, (sub) => {
        const a = score(sub);
        const b = score(structuredClone(sub));
        expect(b).toEqual(a);
        expect(JSON.stringify(b)).toBe(JSON.stringify(a));
        // The clock matters only for a birth year without a source timestamp; this input has ageYears.
        expect(JSON.stringify(scoreSubmission(sub, { now: new Date('2040-01-01T00:00:00Z') }))).toBe(
          JSON.stringify(a),
        );
      }),
      { numRuns: 100 },
    );
  });

  const monotoneMarkers: MarkerCode[] = ['CRP', 'CYSTATIN_C', 'HBA1C_MMOL_MOL', 'GGT'];
  it.each(monotoneMarkers)('a higher %s never raises the general score', (code) => {
    const { lower, upper } = MARKERS[code].defaultRange;
    const pair = fc
      .tuple(
        fc.double({ min: lower, max: upper, noNaN: true }),
        fc.double({ min: lower, max: upper, noNaN: true }),
      )
      .map(([a, b]) => (a <= b ? [a, b] : [b, a]));
    fc.assert(
      fc.property(profile, panel, pair, (p, markers, [low, high]) => {
        const general = (v: number) =>
          scores(score(submissionOf(p, { status: 'never' }, { ...markers, [code]: v })))[
            'wellbeing.general'
          ]!;
        expect(general(high!)).toBeLessThanOrEqual(general(low!));
      }),
      { numRuns: 100 },
    );
  });

  it('current smoking never raises a score versus never smoking, all else equal', () => {
    const current = fc
      .record({
        currentFrequency: fc.constantFrom('light', 'moderate', 'heavy'),
        currentCigsPerDay: fc.double({ min: 1, max: 60, noNaN: true }),
      })
      .map((s) => ({ status: 'current', ...s }));
    fc.assert(
      fc.property(profile, current, (p, smoking) => {
        const never = score(submissionOf(p, { status: 'never' }));
        const smoker = score(submissionOf(p, smoking));
        const diabetic = never.derived.find((d) => d.key === 'diabetes')?.value === true;
        for (const [id, s] of Object.entries(scores(smoker))) {
          const n = scores(never)[id]!;
          if (id === 'wellbeing.renal' && diabetic) {
            // The CKD-PC diabetes model's ever-smoker coefficient is −0.00084 (SHR 1.00): the model
            // itself is not monotone here, so only a rounding-sized rise is allowed: one step of
            // the score's three decimals, counted in steps (0.013 + 0.001 is 0.013999… in floats).
            expect(Math.round(s * 1000)).toBeLessThanOrEqual(Math.round(n * 1000) + 1);
          } else {
            expect(s, id).toBeLessThanOrEqual(n);
          }
        }
      }),
      { numRuns: 200 },
    );
  });
});
