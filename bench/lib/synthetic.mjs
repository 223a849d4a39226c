// Synthetic submissions: valid bodies spread over the questionnaire's and the panel's ranges,
// from a seeded PRNG (the same seed gives the same bodies). bench:model scores them; the packing
// dictionaries (scripts/pack-dictionary.mjs) are made from them, so no person's data is in either.
import fs from 'node:fs';
import path from 'node:path';
import { checkPanel, MARKER_CODES, MARKERS, parseSubmission } from '../../dist/domain/submission/index.js';
import { prng } from './prng.mjs';

const root = path.resolve(import.meta.dirname, '../..');
export const NOW = new Date('2026-12-01T00:00:00Z');
export const OUTCOMES = [
  'wellbeing.cardiovascular',
  'wellbeing.cognitive',
  'wellbeing.renal',
  'wellbeing.respiratory',
  'wellbeing.general',
];

/** `body()` a raw request body as a partner sends it; `generate(n)` n of them parsed and checked. */
export function syntheticSubmissions(seed) {
  const rand = prng(seed);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const chance = (p) => rand() < p;
  /** Log-uniform-ish spread around a typical value, kept inside the accepted range. */
  function around(typical, spread, lower, upper) {
    const v = typical * Math.exp((rand() * 2 - 1) * spread);
    return Math.round(Math.min(upper, Math.max(lower, v)) * 1000) / 1000;
  }

  const example = JSON.parse(fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8'));
  const TYPICAL = Object.fromEntries(example.markers.map((m) => [m.code, m.value]));
  const ETHNICITIES = [
    'white_british',
    'black_african',
    'south_asian_indian',
    'chinese',
    'hispanic',
    'mixed',
  ];
  const FAMILY = ['dementia', 'lung_cancer', 'cardiovascular_disease', 'diabetes_mellitus', 'kidney_disease'];

  function smoking(age) {
    const r = rand();
    if (r < 0.5) return { status: 'never' };
    if (r < 0.53) return { status: 'prefer_not_to_say' };
    const frequency = pick(['light', 'moderate', 'heavy']);
    if (r < 0.78) {
      const stopAge = int(Math.min(16, age), age);
      const out = { status: 'former', pastFrequency: frequency, stopAge };
      if (chance(0.6)) out.pastCigsPerDay = int(1, 40);
      if (frequency === 'heavy' && chance(0.8)) out.startAge = int(Math.min(14, stopAge), stopAge);
      return out;
    }
    const out = { status: 'current', currentFrequency: frequency };
    if (chance(0.6)) out.currentCigsPerDay = int(1, 40);
    if (frequency === 'heavy' && chance(0.8)) out.startAge = int(Math.min(14, age), age);
    return out;
  }

  function parent() {
    const alive = chance(0.5);
    const age = int(45, 100);
    return {
      aliveStatus: alive ? 'alive' : 'deceased',
      ...(alive ? { currentAge: age } : { deathAge: age }),
      conditions: FAMILY.filter(() => chance(0.12)),
    };
  }

  function body() {
    const b = structuredClone(example);
    const age = chance(0.01) ? int(10, 17) : int(18, 90);
    const d = b.subject.demographics;
    d.sexAtBirth = pick(['male', 'female']);
    d.ageYears = age;
    d.ethnicity = pick(ETHNICITIES);
    if (chance(0.1)) delete d.educationYears;
    else d.educationYears = int(8, 22);
    if (chance(0.05)) delete b.subject.measurements;
    else b.subject.measurements = { weightKg: int(45, 140), heightCm: int(150, 200) };
    const h = b.subject.history;
    h.overallHealth = pick(['excellent', 'very_good', 'good', 'fair', 'poor', 'unknown']);
    h.smoking = smoking(age);
    h.conditions = {
      hasDiabetes: chance(0.08),
      hasDementia: chance(0.01),
      hasCardioCerebrovascular: chance(0.06),
      hasLungCancer: chance(0.01),
      hasKidneyDisease: chance(0.02),
    };
    b.subject.familyHistory = { father: parent(), mother: parent() };
    b.options.requestedOutcomes = OUTCOMES;
    if (chance(0.05)) {
      delete b.markers;
      b.reportDocuments = [
        { documentType: 'lab_report', effectiveAt: '2026-11-01', summaryText: 'Routine check.' },
      ];
    } else {
      b.markers = MARKER_CODES.map((code) => {
        const { lower, upper } = MARKERS[code].defaultRange;
        return { code, value: around(TYPICAL[code], 0.45, lower, upper), unit: MARKERS[code].unit };
      });
    }
    return b;
  }

  function generate(n) {
    const out = [];
    while (out.length < n) {
      const parsed = parseSubmission(body(), { now: NOW });
      if (!parsed.ok) throw new Error(`generated an invalid body: ${JSON.stringify(parsed.error)}`);
      const panel = checkPanel(parsed.value);
      if (!panel.ok) throw new Error(`generated an invalid panel: ${JSON.stringify(panel.details)}`);
      out.push(panel.value);
    }
    return out;
  }

  return { body, generate };
}
