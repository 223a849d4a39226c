import { expect } from 'vitest';
import { type ModelResult, type ScoredOutcome, scoreSubmission } from '../../../src/domain/model/index.js';
import type { OutcomeId } from '../../../src/domain/submission/index.js';
import type { NormalisedSubmission } from '../../../src/domain/submission/panel.js';
import { build, expectPanelOk, type JsonObject, NOW, UNSET } from '../submission-fixture.js';

/** Helpers for the model tests: valid submissions built from the spec example through the real parser. */

export { NOW, UNSET };

export const ALL_OUTCOMES: OutcomeId[] = [
  'wellbeing.cardiovascular',
  'wellbeing.cognitive',
  'wellbeing.renal',
  'wellbeing.respiratory',
  'wellbeing.general',
];

const MARKER_INDEX: Record<string, number> = {
  ALBUMIN: 0,
  ALT: 1,
  ALP: 2,
  AST: 3,
  CALCIUM: 4,
  CHOL: 5,
  CYSTATIN_C: 6,
  GGT: 7,
  HDL: 8,
  CRP: 9,
  LDL: 10,
  PHOSPHATE: 11,
  URATE: 12,
  HBA1C_MMOL_MOL: 13,
};

/** The example body with `changes` applied; `markers.X` sets marker X's value; all five outcomes requested. */
export function body(changes: Record<string, unknown> = {}): JsonObject {
  const mapped: Record<string, unknown> = { 'options.requestedOutcomes': ALL_OUTCOMES };
  for (const [key, value] of Object.entries(changes)) {
    const m = /^markers\.([A-Z0-9_]+)$/.exec(key);
    if (m !== null) mapped[`markers[${MARKER_INDEX[m[1]!]}].value`] = value;
    else mapped[key] = value;
  }
  return build(mapped);
}

/** A documents-only body (no markers). */
export function documentsOnlyBody(changes: Record<string, unknown> = {}): JsonObject {
  return body({
    markers: UNSET,
    reportDocuments: [
      {
        documentType: 'lab_report',
        effectiveAt: '2026-11-01',
        summaryText: 'Routine check, nothing of note.',
      },
    ],
    ...changes,
  });
}

export function normalised(changes: Record<string, unknown> = {}): NormalisedSubmission {
  return expectPanelOk(body(changes));
}

export function score(changes: Record<string, unknown> = {}): ModelResult {
  return scoreSubmission(normalised(changes), { now: NOW });
}

export function scoreBody(b: JsonObject): ModelResult {
  return scoreSubmission(expectPanelOk(b), { now: NOW });
}

export function outcome(result: ModelResult, id: OutcomeId): ScoredOutcome {
  const o = result.outcomes.find((x) => x.outcomeId === id);
  if (o === undefined) expect.fail(`outcome ${id} missing`);
  return o;
}

/** A subject with no smoking, no conditions and no family history, for isolating one factor. */
export const PLAIN: Record<string, unknown> = {
  'subject.history.smoking': { status: 'never' },
  'subject.familyHistory': UNSET,
  'subject.history.conditions': UNSET,
};
