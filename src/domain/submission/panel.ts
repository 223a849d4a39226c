import type { FamilyCondition } from './family-history-rules.js';
import { echo, formatPath } from './issue-messages.js';
import {
  isHba1cAlias,
  MARKER_CODES,
  MARKERS,
  type MarkerCode,
  resolveMarkerCode,
  unitsEqual,
} from './markers.js';
import { DEFAULT_OUTCOMES, normaliseOutcomeName, type OutcomeId, type RequestedOutput } from './outcomes.js';
import { NOT_APPLICABLE } from './raw-values.js';
import type { ParsedSubmission } from './schema.js';

/**
 * The 14-marker panel check (SUBMISSION_VALIDATION_ERROR) and the normalised
 * form of an accepted submission. Runs after parseSubmission and the partner
 * id check, as partner-api.md orders them.
 */

export const PANEL_SIZE = MARKER_CODES.length;

export interface PanelIssue {
  field: string;
  message: string;
}

export interface NormalisedMarker {
  code: MarkerCode;
  value: number;
  /** The catalogue unit, whatever spelling was sent. */
  unit: string;
  /** As sent, else sourceMetadata.sourceTimestamp, else null. */
  observedAt: string | null;
  sentCode: string;
  sentUnit: string;
}

export interface NormalisedMarkerRange {
  unit: string;
  lowerBound: number;
  upperBound: number;
}

type SourceMetadata = NonNullable<ParsedSubmission['sourceMetadata']>;

export type NormalisedSourceMetadata = Omit<SourceMetadata, 'markerRanges'> & {
  markerRanges?: Partial<Record<MarkerCode, NormalisedMarkerRange>>;
};

export interface NormalisedOptions {
  requestedOutputs: RequestedOutput[];
  requestedOutcomes: OutcomeId[];
}

export type ReportDocument = NonNullable<ParsedSubmission['reportDocuments']>[number];

/**
 * An accepted submission in the form the pipeline uses: -1 sentinels dropped,
 * markers canonical and in catalogue order, ranges keyed by canonical code,
 * duplicates merged and default outcomes applied. `markers` and
 * `reportDocuments` are always arrays (empty when not sent).
 */
export type NormalisedSubmission = Omit<
  ParsedSubmission,
  'markers' | 'reportDocuments' | 'options' | 'sourceMetadata'
> & {
  markers: NormalisedMarker[];
  reportDocuments: ReportDocument[];
  options: NormalisedOptions;
  sourceMetadata?: NormalisedSourceMetadata;
};

export type PanelResult = { ok: true; value: NormalisedSubmission } | { ok: false; details: PanelIssue[] };

interface RangeCheck {
  ranges: Map<MarkerCode, NormalisedMarkerRange>;
  /** Codes whose listed range is itself invalid; their values are not range-checked. */
  unusable: Set<MarkerCode>;
}

function rangeField(key: string, ...rest: string[]): string {
  return formatPath(['sourceMetadata', 'markerRanges', key, ...rest]);
}

function checkMarkerRanges(sub: ParsedSubmission, issues: PanelIssue[]): RangeCheck {
  const ranges = new Map<MarkerCode, NormalisedMarkerRange>();
  const unusable = new Set<MarkerCode>();
  const firstKey = new Map<MarkerCode, string>();
  for (const [key, range] of Object.entries(sub.sourceMetadata?.markerRanges ?? {})) {
    const code = resolveMarkerCode(key);
    if (code === null) {
      issues.push({
        field: rangeField(key),
        message: `${echo(key)} is not a known marker code; markerRanges keys must be panel codes (${MARKER_CODES.join(', ')}) or accepted aliases`,
      });
      continue;
    }
    const earlier = firstKey.get(code);
    if (earlier !== undefined) {
      issues.push({
        field: rangeField(key),
        message: `${echo(key)} names the same marker (${code}) as ${echo(earlier)}; list each marker once in markerRanges`,
      });
      continue;
    }
    firstKey.set(code, key);
    const { unit } = MARKERS[code];
    let usable = true;
    if (!unitsEqual(range.unit, unit)) {
      usable = false;
      issues.push({ field: rangeField(key, 'unit'), message: `unit for ${code} must be ${unit}` });
    }
    if (range.lowerBound > range.upperBound) {
      usable = false;
      issues.push({
        field: rangeField(key),
        message: `lowerBound (${range.lowerBound}) must not be greater than upperBound (${range.upperBound}) for ${code}`,
      });
    }
    if (usable) ranges.set(code, { unit, lowerBound: range.lowerBound, upperBound: range.upperBound });
    else unusable.add(code);
  }
  return { ranges, unusable };
}

interface ResolvedMarker {
  index: number;
  code: MarkerCode;
}

function markerField(index: number, field: string): string {
  return `markers[${index}].${field}`;
}

function checkMarkers(sub: ParsedSubmission, rangeCheck: RangeCheck, issues: PanelIssue[]): ResolvedMarker[] {
  const markers = sub.markers ?? [];
  const resolved: ResolvedMarker[] = [];
  const firstIndex = new Map<MarkerCode, number>();

  for (let index = 0; index < markers.length; index++) {
    const m = markers[index]!;
    const code = resolveMarkerCode(m.code);
    if (code === null) {
      issues.push({
        field: markerField(index, 'code'),
        message: `unknown marker code ${echo(m.code)}; use one of ${MARKER_CODES.join(', ')} or an accepted alias`,
      });
    } else {
      const earlier = firstIndex.get(code);
      if (earlier !== undefined) {
        issues.push({
          field: markerField(index, 'code'),
          message: `${code} is sent more than once (also at markers[${earlier}], after resolving aliases); send each panel code once`,
        });
      } else {
        firstIndex.set(code, index);
        resolved.push({ index, code });
      }
    }

    let unitOk = false;
    if (code !== null) {
      const { unit } = MARKERS[code];
      // Only the HbA1c code can have been sent as the bare HBA1C alias.
      if (code === 'HBA1C_MMOL_MOL' && isHba1cAlias(m.code) && !unitsEqual(m.unit, unit)) {
        issues.push({
          field: markerField(index, 'unit'),
          message:
            'HBA1C is accepted only with unit mmol/mol (IFCC); convert a percentage (DCCT) result to mmol/mol, or send code HBA1C_MMOL_MOL with unit mmol/mol',
        });
      } else if (!unitsEqual(m.unit, unit)) {
        issues.push({
          field: markerField(index, 'unit'),
          message: `unit for ${code} must be ${unit} (sent ${echo(m.unit)})`,
        });
      } else {
        unitOk = true;
      }
    }

    if (m.value === NOT_APPLICABLE) {
      issues.push({
        field: markerField(index, 'value'),
        message: 'value -1 is not valid for a blood marker; send the measured value',
      });
    } else if (code !== null && unitOk && !rangeCheck.unusable.has(code)) {
      // A value in the wrong unit cannot be judged against the range, so only the unit is reported.
      const listed = rangeCheck.ranges.get(code);
      const lower = listed ? listed.lowerBound : MARKERS[code].defaultRange.lower;
      const upper = listed ? listed.upperBound : MARKERS[code].defaultRange.upper;
      if (m.value < lower || m.value > upper) {
        issues.push({
          field: markerField(index, 'value'),
          message: `value ${m.value} for ${code} is outside the ${listed ? 'range given in sourceMetadata.markerRanges' : 'accepted range'} ${lower} to ${upper} ${MARKERS[code].unit}`,
        });
      }
    }
  }

  if (markers.length !== PANEL_SIZE) {
    const missing = MARKER_CODES.filter((c) => !firstIndex.has(c));
    // The count comes first: it is the first panel rule and often explains the others.
    issues.unshift({
      field: 'markers',
      message: `markers must contain exactly ${PANEL_SIZE} entries, one per panel code; ${markers.length} ${markers.length === 1 ? 'was' : 'were'} sent${missing.length > 0 && missing.length < PANEL_SIZE ? ` (missing: ${missing.join(', ')})` : ''}`,
    });
  }
  return resolved;
}

function dropSentinels<T extends object>(value: T, keys: readonly (keyof T)[]): T {
  const copy = { ...value };
  for (const key of keys) {
    if (copy[key] === NOT_APPLICABLE) delete copy[key];
  }
  return copy;
}

/** Longer lists (a hostile body may send thousands) are merged through a Set. */
const SMALL_LIST = 16;

/** The distinct values, in order of first appearance. */
function unique<T>(values: readonly T[]): T[] {
  if (values.length > SMALL_LIST) return [...new Set(values)];
  const out: T[] = [];
  for (const v of values) if (!out.includes(v)) out.push(v);
  return out;
}

type Subject = ParsedSubmission['subject'];
type Parent = NonNullable<NonNullable<Subject['familyHistory']>['father']>;

function normaliseParent(parent: Parent): Parent {
  const out = dropSentinels(parent, ['deathAge', 'currentAge']);
  if (out.conditions !== undefined) out.conditions = unique<FamilyCondition>(out.conditions);
  return out;
}

function normaliseSubject(subject: Subject): Subject {
  const out: Subject = { ...subject };
  if (subject.history?.smoking !== undefined) {
    out.history = {
      ...subject.history,
      smoking: dropSentinels(subject.history.smoking, [
        'currentCigsPerDay',
        'pastCigsPerDay',
        'stopAge',
        'startAge',
      ]),
    };
  }
  const family = subject.familyHistory;
  if (family !== undefined) {
    out.familyHistory = { ...family };
    if (family.father !== undefined) out.familyHistory.father = normaliseParent(family.father);
    if (family.mother !== undefined) out.familyHistory.mother = normaliseParent(family.mother);
  }
  return out;
}

function normaliseOptions(options: ParsedSubmission['options']): NormalisedOptions {
  const outcomes = (options.requestedOutcomes ?? [])
    .map(normaliseOutcomeName)
    .filter((o): o is OutcomeId => o !== null);
  return {
    requestedOutputs: unique(options.requestedOutputs),
    requestedOutcomes: outcomes.length > 0 ? unique(outcomes) : [...DEFAULT_OUTCOMES],
  };
}

const CATALOGUE_POSITION: ReadonlyMap<MarkerCode, number> = new Map(MARKER_CODES.map((code, i) => [code, i]));

function normaliseMarkers(sub: ParsedSubmission, resolved: readonly ResolvedMarker[]): NormalisedMarker[] {
  const sent = sub.markers ?? [];
  const sourceTimestamp = sub.sourceMetadata?.sourceTimestamp ?? null;
  // Slot by catalogue position: the panel comes out in catalogue order, whatever order it was sent in.
  const slots: (NormalisedMarker | undefined)[] = new Array(PANEL_SIZE).fill(undefined);
  for (const { index, code } of resolved) {
    const m = sent[index]!;
    slots[CATALOGUE_POSITION.get(code)!] = {
      code,
      value: m.value,
      unit: MARKERS[code].unit,
      observedAt: m.observedAt ?? sourceTimestamp,
      sentCode: m.code,
      sentUnit: m.unit,
    };
  }
  const out: NormalisedMarker[] = [];
  for (const m of slots) if (m !== undefined) out.push(m);
  return out;
}

function normaliseSourceMetadata(meta: SourceMetadata, rangeCheck: RangeCheck): NormalisedSourceMetadata {
  // No key added and deleted: that turned the object into a slow dictionary for the
  // JSON.stringify that follows. An absent markerRanges stays absent.
  if (meta.markerRanges === undefined) return { ...meta };
  const ranges: Partial<Record<MarkerCode, NormalisedMarkerRange>> = {};
  for (const code of MARKER_CODES) {
    const range = rangeCheck.ranges.get(code);
    if (range !== undefined) ranges[code] = range;
  }
  // The spread puts markerRanges where the parsed metadata has it; the literal replaces its value.
  return { ...meta, markerRanges: ranges };
}

// Built field by field rather than with object rest, which V8 runs through a slow generic path.
function normalise(
  sub: ParsedSubmission,
  resolved: readonly ResolvedMarker[],
  rangeCheck: RangeCheck,
): NormalisedSubmission {
  const out: NormalisedSubmission = {
    schemaVersion: sub.schemaVersion,
    partnerId: sub.partnerId,
    partnerSubmissionId: sub.partnerSubmissionId,
    partnerSubjectId: sub.partnerSubjectId,
    subject: normaliseSubject(sub.subject),
    markers: normaliseMarkers(sub, resolved),
    reportDocuments: sub.reportDocuments ?? [],
    options: normaliseOptions(sub.options),
  };
  if (sub.sourceMetadata !== undefined)
    out.sourceMetadata = normaliseSourceMetadata(sub.sourceMetadata, rangeCheck);
  if (sub.questionnaire !== undefined) out.questionnaire = sub.questionnaire;
  if (sub.clinicalExtensions !== undefined) out.clinicalExtensions = sub.clinicalExtensions;
  return out;
}

/**
 * Checks count, codes, duplicates, units and bounds of the marker panel and
 * the markerRanges it is judged by, reporting every problem. A documents-only
 * submission (no markers) passes the panel; its markerRanges are still checked
 * because partner-api.md rejects unknown range keys unconditionally.
 */
export function checkPanel(sub: ParsedSubmission): PanelResult {
  const rangeIssues: PanelIssue[] = [];
  const rangeCheck = checkMarkerRanges(sub, rangeIssues);
  const markerIssues: PanelIssue[] = [];
  const resolved = (sub.markers?.length ?? 0) > 0 ? checkMarkers(sub, rangeCheck, markerIssues) : [];
  const issues = [...markerIssues, ...rangeIssues];
  if (issues.length > 0) return { ok: false, details: issues };
  return { ok: true, value: normalise(sub, resolved, rangeCheck) };
}
