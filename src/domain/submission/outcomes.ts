/** Wellbeing outcome ids and report outputs a partner may request. */

export const OUTCOME_IDS = [
  'wellbeing.cardiovascular',
  'wellbeing.renal',
  'wellbeing.cognitive',
  'wellbeing.respiratory',
  'wellbeing.general',
] as const;

export type OutcomeId = (typeof OUTCOME_IDS)[number];

/** decisions.md: the four areas the partner integration requests, in this order. */
export const DEFAULT_OUTCOMES: OutcomeId[] = [
  'wellbeing.cardiovascular',
  'wellbeing.cognitive',
  'wellbeing.renal',
  'wellbeing.respiratory',
];

export const REQUESTED_OUTPUTS = ['inference_score_v1', 'score', 'json', 'pdf', 'html'] as const;

export type RequestedOutput = (typeof REQUESTED_OUTPUTS)[number];

/** Outputs that produce a downloadable report artifact (the others are scores only), in listing order. */
export const ARTIFACT_TYPES = ['json', 'html', 'pdf'] as const satisfies readonly RequestedOutput[];
export type ArtifactType = (typeof ARTIFACT_TYPES)[number];
export const ARTIFACT_OUTPUTS: readonly RequestedOutput[] = ARTIFACT_TYPES;

const AREA_TO_OUTCOME: ReadonlyMap<string, OutcomeId> = new Map<string, OutcomeId>([
  ['cardiovascular', 'wellbeing.cardiovascular'],
  ['renal', 'wellbeing.renal'],
  ['kidney', 'wellbeing.renal'],
  ['cognitive', 'wellbeing.cognitive'],
  ['respiratory', 'wellbeing.respiratory'],
  ['general', 'wellbeing.general'],
]);

// Current name, the reversed synonym form, and the legacy ten-year name.
const OUTCOME_NAME_FORMS = [/^wellbeing\.([a-z]+)$/, /^([a-z]+)\.wellbeing$/, /^([a-z]+)_wellbeing_10y$/];

/** Every accepted spelling, lower-case: the names sent almost always take one lookup. */
const KNOWN_NAMES: ReadonlyMap<string, OutcomeId> = new Map(
  [...AREA_TO_OUTCOME].flatMap(([area, id]): [string, OutcomeId][] => [
    [`wellbeing.${area}`, id],
    [`${area}.wellbeing`, id],
    [`${area}_wellbeing_10y`, id],
  ]),
);

/**
 * Maps any accepted spelling (`wellbeing.kidney`, `renal.wellbeing`,
 * `cardiovascular_wellbeing_10y`, ...) to its public outcome id. Trimmed and
 * case-insensitive, since these names are often typed by hand.
 */
export function normaliseOutcomeName(raw: string): OutcomeId | null {
  const known = KNOWN_NAMES.get(raw);
  if (known !== undefined) return known;
  const name = raw.trim().toLowerCase();
  for (const form of OUTCOME_NAME_FORMS) {
    const area = form.exec(name)?.[1];
    if (area !== undefined) return AREA_TO_OUTCOME.get(area) ?? null;
  }
  return null;
}
