import { describe, expect, it } from 'vitest';
import { MARKER_ALIASES, MARKER_CODES, MARKERS, type MarkerCode } from '../../src/domain/submission/index.js';
import {
  build,
  example,
  expectPanelOk,
  expectPanelRejectedAt,
  expectRejectedAt,
  type JsonObject,
  panelOf,
  UNSET,
} from './submission-fixture.js';

/** partner-api.md "Marker entry" panel rules and "markerRanges" rules. */

const indexOf = (code: MarkerCode) => MARKER_CODES.indexOf(code);
const markerPath = (code: MarkerCode, field: string) => `markers[${indexOf(code)}].${field}`;
const ranges = (value: JsonObject) => ({ 'sourceMetadata.markerRanges': value });
const doc = { documentType: 'lab_summary', effectiveAt: '2026-11-20', summaryText: 'Results attached.' };

describe('panel: the example', () => {
  it('passes and normalises 14 markers in catalogue order', () => {
    const value = expectPanelOk(example());
    expect(value.markers.map((m) => m.code)).toEqual([...MARKER_CODES]);
    expect(value.markers[0]).toEqual({
      code: 'ALBUMIN',
      value: 44.1,
      unit: 'g/L',
      observedAt: '2026-11-20T09:30:00Z',
      sentCode: 'ALBUMIN',
      sentUnit: 'g/L',
    });
    expect(value.options).toEqual({
      requestedOutputs: ['score', 'json', 'html', 'pdf'],
      requestedOutcomes: [
        'wellbeing.cardiovascular',
        'wellbeing.cognitive',
        'wellbeing.renal',
        'wellbeing.respiratory',
      ],
    });
    expect(value.reportDocuments).toEqual([]);
  });

  it('sorts shuffled markers into catalogue order', () => {
    const body = example();
    (body.markers as unknown[]).reverse();
    expect(expectPanelOk(body).markers.map((m) => m.code)).toEqual([...MARKER_CODES]);
  });
});

describe('panel: accepted', () => {
  it.each(aliasCases())('accepts the alias %s for %s and records the sent code', (alias, code) => {
    const value = expectPanelOk(build({ [markerPath(code, 'code')]: alias }));
    const marker = value.markers.find((m) => m.code === code);
    expect(marker?.sentCode).toBe(alias);
    expect(value.markers).toHaveLength(14);
  });

  it.each([
    ['µmol/L (micro sign)', 'µmol/L'],
    ['μmol/L (Greek mu)', 'μmol/L'],
    ['umol/L', 'umol/L'],
    ['UMOL/L', 'UMOL/L'],
    [' µmol/L ', ' µmol/L '],
  ])('accepts the URATE unit %s and normalises it to the catalogue unit', (_name, unit) => {
    const value = expectPanelOk(build({ [markerPath('URATE', 'unit')]: unit }));
    const urate = value.markers.find((m) => m.code === 'URATE');
    expect(urate?.unit).toBe('µmol/L');
    expect(urate?.sentUnit).toBe(unit);
  });

  it('accepts a lower-case unit', () => {
    expectPanelOk(build({ [markerPath('ALT', 'unit')]: 'u/l', [markerPath('ALBUMIN', 'unit')]: 'G/L' }));
  });

  it('accepts HBA1C with mmol/mol', () => {
    expectPanelOk(build({ [markerPath('HBA1C_MMOL_MOL', 'code')]: 'HBA1C' }));
  });

  const edgeCases = MARKER_CODES.flatMap((code) => [
    [code, MARKERS[code].defaultRange.lower] as const,
    [code, MARKERS[code].defaultRange.upper] as const,
  ]);
  it.each(edgeCases)('accepts %s at its bound %d', (code, value) => {
    expectPanelOk(build({ [markerPath(code, 'value')]: value }));
  });

  it('keeps a marker observedAt and defaults others to sourceTimestamp', () => {
    const value = expectPanelOk(build({ [markerPath('ALT', 'observedAt')]: '2026-11-19' }));
    expect(value.markers.find((m) => m.code === 'ALT')?.observedAt).toBe('2026-11-19');
    expect(value.markers.find((m) => m.code === 'AST')?.observedAt).toBe('2026-11-20T09:30:00Z');
  });

  it('leaves observedAt null without a sourceTimestamp', () => {
    const value = expectPanelOk(build({ 'sourceMetadata.sourceTimestamp': UNSET }));
    expect(value.markers.every((m) => m.observedAt === null)).toBe(true);
  });

  it('accepts a value outside the default range when markerRanges widens it', () => {
    const value = expectPanelOk(
      build({
        [markerPath('CRP', 'value')]: 95,
        ...ranges({ CRP: { unit: 'mg/L', lowerBound: 0.08, upperBound: 120 } }),
      }),
    );
    expect(value.sourceMetadata?.markerRanges).toEqual({
      CRP: { unit: 'mg/L', lowerBound: 0.08, upperBound: 120 },
    });
  });

  it('accepts a value inside a narrowed range', () => {
    expectPanelOk(build(ranges({ ALT: { unit: 'U/L', lowerBound: 10, upperBound: 40 } })));
  });

  it('accepts a value at the edge of a listed range', () => {
    expectPanelOk(
      build({
        [markerPath('ALT', 'value')]: 40,
        ...ranges({ ALT: { unit: 'U/L', lowerBound: 40, upperBound: 40 } }),
      }),
    );
  });

  it('keys markerRanges by canonical code with the catalogue unit', () => {
    const value = expectPanelOk(
      build(
        ranges({
          UA: { unit: 'umol/L', lowerBound: 100, upperBound: 500 },
          alb: { unit: 'g/l', lowerBound: 30, upperBound: 50 },
        }),
      ),
    );
    expect(value.sourceMetadata?.markerRanges).toEqual({
      ALBUMIN: { unit: 'g/L', lowerBound: 30, upperBound: 50 },
      URATE: { unit: 'µmol/L', lowerBound: 100, upperBound: 500 },
    });
  });

  it('keeps the order of sourceMetadata keys, with or without markerRanges', () => {
    const withRanges = expectPanelOk(
      build({
        'sourceMetadata.markerRanges': { alb: { unit: 'g/L', lowerBound: 30, upperBound: 50 } },
        'sourceMetadata.facilityId': 'clinic-1',
      }),
    );
    expect(Object.keys(withRanges.sourceMetadata ?? {})).toEqual([
      'sourceTimestamp',
      'sourceSystem',
      'labName',
      'facilityId',
      'markerRanges',
    ]);
    const without = expectPanelOk(example());
    expect(JSON.stringify(without.sourceMetadata)).toBe(
      '{"sourceTimestamp":"2026-11-20T09:30:00Z","sourceSystem":"intake-portal","labName":"Example Lab"}',
    );
  });

  it('merges repeated outputs and outcomes in order of first appearance, in short and long lists', () => {
    const short = expectPanelOk(
      build({
        'options.requestedOutputs': ['json', 'score', 'json', 'pdf', 'score'],
        'options.requestedOutcomes': ['renal.wellbeing', 'wellbeing.kidney', 'wellbeing.general'],
      }),
    );
    expect(short.options).toEqual({
      requestedOutputs: ['json', 'score', 'pdf'],
      requestedOutcomes: ['wellbeing.renal', 'wellbeing.general'],
    });
    const long = expectPanelOk(
      build({ 'options.requestedOutputs': [...Array(20).fill('html'), 'json', 'html', 'score'] }),
    );
    expect(long.options.requestedOutputs).toEqual(['html', 'json', 'score']);
  });

  it('passes a documents-only submission', () => {
    const value = expectPanelOk(build({ markers: UNSET, reportDocuments: [doc] }));
    expect(value.markers).toEqual([]);
    expect(value.reportDocuments).toEqual([doc]);
  });

  it('passes documents with an empty marker list', () => {
    expectPanelOk(build({ markers: [], reportDocuments: [doc] }));
  });
});

describe('panel: rejected', () => {
  it('rejects 13 markers and names the missing code', () => {
    const body = example();
    (body.markers as unknown[]).pop();
    const [message] = expectPanelRejectedAt(body, 'markers');
    expect(message).toMatch(/exactly 14/);
    expect(message).toMatch(/13 were sent/);
    expect(message).toMatch(/HBA1C_MMOL_MOL/);
  });

  it('rejects 15 markers and flags the duplicate', () => {
    const body = example();
    (body.markers as unknown[]).push({ code: 'ALT', value: 20, unit: 'U/L' });
    const [message] = expectPanelRejectedAt(body, 'markers');
    expect(message).toMatch(/15 were sent/);
    expectPanelRejectedAt(body, 'markers[14].code');
  });

  it('rejects a single marker', () => {
    const body = build({ markers: [{ code: 'ALT', value: 20, unit: 'U/L' }] });
    expect(expectPanelRejectedAt(body, 'markers')[0]).toMatch(/1 was sent/);
  });

  it('rejects an unknown code and names it', () => {
    const [message] = expectPanelRejectedAt(build({ 'markers[1].code': 'TSH' }), 'markers[1].code');
    expect(message).toMatch(/unknown marker code TSH/);
  });

  it('truncates a long unknown code in the message', () => {
    const [message] = expectPanelRejectedAt(build({ 'markers[1].code': 'Z'.repeat(64) }), 'markers[1].code');
    expect(message).not.toContain('Z'.repeat(50));
  });

  it.each(aliasCases())('rejects %s next to %s as a duplicate', (alias, code) => {
    // Replace a different marker with the alias so the canonical entry is still present.
    const victim = code === 'ALBUMIN' ? 'ALT' : 'ALBUMIN';
    const body = build({
      [markerPath(victim, 'code')]: alias,
      [markerPath(victim, 'unit')]: MARKERS[code].unit,
      [markerPath(victim, 'value')]: MARKERS[code].defaultRange.lower,
    });
    const later = Math.max(indexOf(victim), indexOf(code));
    const [message] = expectPanelRejectedAt(body, `markers[${later}].code`);
    expect(message).toMatch(new RegExp(`${code} is sent more than once`));
  });

  it('rejects HBA1C in percent and asks for mmol/mol', () => {
    const body = build({
      [markerPath('HBA1C_MMOL_MOL', 'code')]: 'HBA1C',
      [markerPath('HBA1C_MMOL_MOL', 'unit')]: '%',
      [markerPath('HBA1C_MMOL_MOL', 'value')]: 5.6,
    });
    const [message] = expectPanelRejectedAt(body, markerPath('HBA1C_MMOL_MOL', 'unit'));
    expect(message).toMatch(/mmol\/mol/);
    // The value cannot be judged in the wrong unit, so only the unit is reported.
    const result = panelOf(body);
    expect(result.ok ? [] : result.details.map((d) => d.field)).toEqual([
      markerPath('HBA1C_MMOL_MOL', 'unit'),
    ]);
  });

  it('rejects HBA1C_MMOL_MOL in percent', () => {
    const body = build({ [markerPath('HBA1C_MMOL_MOL', 'unit')]: '%' });
    expect(expectPanelRejectedAt(body, markerPath('HBA1C_MMOL_MOL', 'unit'))[0]).toMatch(/must be mmol\/mol/);
  });

  const wrongUnits = MARKER_CODES.map(
    (code) => [code, MARKERS[code].unit === 'mmol/L' ? 'mg/dL' : 'mmol/L'] as const,
  );
  it.each(wrongUnits)('rejects %s in %s and names the expected unit', (code, unit) => {
    const [message] = expectPanelRejectedAt(
      build({ [markerPath(code, 'unit')]: unit }),
      markerPath(code, 'unit'),
    );
    expect(message).toContain(`must be ${MARKERS[code].unit}`);
  });

  const beyond = MARKER_CODES.flatMap((code) => [
    [code, 'below', Number((MARKERS[code].defaultRange.lower - 0.01).toFixed(4))] as const,
    [code, 'above', Number((MARKERS[code].defaultRange.upper + 0.01).toFixed(4))] as const,
  ]);
  it.each(beyond)('rejects %s %s its default range (%d)', (code, _side, value) => {
    const [message] = expectPanelRejectedAt(
      build({ [markerPath(code, 'value')]: value }),
      markerPath(code, 'value'),
    );
    expect(message).toContain(code);
    expect(message).toMatch(/outside the accepted range/);
  });

  it('rejects a value of -1, even inside a listed range', () => {
    expectPanelRejectedAt(build({ [markerPath('GGT', 'value')]: -1 }), markerPath('GGT', 'value'));
    const widened = build({
      [markerPath('GGT', 'value')]: -1,
      ...ranges({ GGT: { unit: 'U/L', lowerBound: -5, upperBound: 100 } }),
    });
    expect(expectPanelRejectedAt(widened, markerPath('GGT', 'value'))[0]).toMatch(/-1 is not valid/);
  });

  it('rejects a value outside a narrowed range', () => {
    const body = build(ranges({ ALT: { unit: 'U/L', lowerBound: 5, upperBound: 20 } }));
    expect(expectPanelRejectedAt(body, markerPath('ALT', 'value'))[0]).toMatch(/markerRanges/);
  });

  it('rejects a value above the widened range', () => {
    const body = build({
      [markerPath('CRP', 'value')]: 121,
      ...ranges({ CRP: { unit: 'mg/L', lowerBound: 0.08, upperBound: 120 } }),
    });
    expectPanelRejectedAt(body, markerPath('CRP', 'value'));
  });

  it('rejects markerRanges with an unknown code', () => {
    const body = build(ranges({ TSH: { unit: 'mU/L', lowerBound: 0.4, upperBound: 4 } }));
    expect(expectPanelRejectedAt(body, 'sourceMetadata.markerRanges.TSH')[0]).toMatch(
      /not a known marker code/,
    );
  });

  it('rejects markerRanges with a unit mismatch', () => {
    const body = build(ranges({ ALT: { unit: 'mmol/L', lowerBound: 3, upperBound: 500 } }));
    expect(expectPanelRejectedAt(body, 'sourceMetadata.markerRanges.ALT.unit')[0]).toMatch(/must be U\/L/);
  });

  it('rejects markerRanges with lowerBound above upperBound', () => {
    const body = build(ranges({ ALT: { unit: 'U/L', lowerBound: 50, upperBound: 10 } }));
    expect(expectPanelRejectedAt(body, 'sourceMetadata.markerRanges.ALT')[0]).toMatch(
      /lowerBound \(50\) must not be greater than upperBound \(10\)/,
    );
  });

  it('rejects markerRanges naming one marker twice through an alias', () => {
    const body = build(
      ranges({
        ALBUMIN: { unit: 'g/L', lowerBound: 15, upperBound: 60 },
        ALB: { unit: 'g/L', lowerBound: 20, upperBound: 50 },
      }),
    );
    expect(expectPanelRejectedAt(body, 'sourceMetadata.markerRanges.ALB')[0]).toMatch(
      /same marker \(ALBUMIN\)/,
    );
  });

  it('rejects a display string range before the panel, as a VALIDATION_ERROR', () => {
    expectRejectedAt(build(ranges({ ALT: '3-500 U/L' })), 'sourceMetadata.markerRanges.ALT');
  });

  it('checks markerRanges on a documents-only submission too', () => {
    const body = build({
      markers: UNSET,
      reportDocuments: [doc],
      ...ranges({ TSH: { unit: 'mU/L', lowerBound: 0.4, upperBound: 4 } }),
    });
    expectPanelRejectedAt(body, 'sourceMetadata.markerRanges.TSH');
  });

  it('reports every problem, not just the first', () => {
    const body = build({
      'markers[1].code': 'TSH',
      [markerPath('ALP', 'unit')]: 'mmol/L',
      [markerPath('CRP', 'value')]: 81,
      ...ranges({ FOO: { unit: 'x', lowerBound: 1, upperBound: 2 } }),
    });
    (body.markers as unknown[]).pop();
    const result = panelOf(body);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.details.map((d) => d.field).sort()).toEqual(
        [
          'markers',
          'markers[1].code',
          markerPath('ALP', 'unit'),
          markerPath('CRP', 'value'),
          'sourceMetadata.markerRanges.FOO',
        ].sort(),
      );
    }
  });
});

function aliasCases() {
  return Object.entries(MARKER_ALIASES).map(([alias, code]) => [alias, code] as const);
}
