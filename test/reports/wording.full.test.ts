import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scoreSubmission } from '../../src/domain/model/index.js';
import { buildReport, type Report, renderArtifact } from '../../src/reports/index.js';
import { input, markerSubmission, NOW } from './fixtures.js';

/**
 * The words of the three artifacts as a partner's reader sees them (issue 13): the example
 * submission with all five areas, scored by the real model, rendered by the real renderers.
 */
const dir = mkdtempSync(path.join(tmpdir(), 'healthspan-wording-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let report: Report;
let htmlText: string;
let html: string;
let pdfText: string;
let jsonText: string;

/** The visible text of the html, tags removed and entities decoded (the few the renderer uses). */
function visibleText(markup: string): string {
  return markup
    .replace(/<style[\s\S]*?<\/style>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, ' ');
}

beforeAll(async () => {
  const submission = markerSubmission();
  submission.options.requestedOutcomes = [
    'wellbeing.cardiovascular',
    'wellbeing.cognitive',
    'wellbeing.renal',
    'wellbeing.respiratory',
    'wellbeing.general',
  ];
  report = buildReport(input(submission, scoreSubmission(submission, { now: NOW })));
  jsonText = (await renderArtifact('json', report)).body.toString('utf8');
  html = (await renderArtifact('html', report)).body.toString('utf8');
  htmlText = visibleText(html);
  const file = path.join(dir, 'report.pdf');
  writeFileSync(file, (await renderArtifact('pdf', report)).body);
  pdfText = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).replace(/\s+/g, ' ');
});

describe('report wording', () => {
  it('states each area’s own period, the same in the statement, the summary cards and the area', () => {
    const years = new Set(report.outcomes.map((o) => o.horizon.years));
    expect(years.size).toBeGreaterThan(1);
    expect(report.statement.text).not.toMatch(/ten years/);
    for (const o of report.outcomes) {
      const span = o.horizon.years === null ? 'no fixed period' : `next ${o.horizon.years} years`;
      expect(report.statement.text).toContain(`${o.focus}: ${span}`);
      expect(o.horizon.label.toLowerCase().startsWith(span)).toBe(true);
    }
    const cards = [...html.matchAll(/<p class="placement horizon">([^<]*)<\/p>/g)].map((m) => m[1]);
    expect(cards).toEqual(
      report.outcomes.map((o) =>
        o.horizon.years === null ? 'No fixed period' : `Next ${o.horizon.years} years`,
      ),
    );
    expect(pdfText).toContain(report.statement.text.slice(0, 60).split(' ').slice(0, 6).join(' '));
    for (const o of report.outcomes) {
      if (o.horizon.years !== null) expect(pdfText).toContain(`Next ${o.horizon.years} years`);
    }
  });

  it('speaks of ten years for memory and thinking, with where its 10-year figure comes from (model 1.1)', () => {
    const memory = report.outcomes.find((o) => o.outcomeId === 'wellbeing.cognitive')!;
    expect(memory.horizon).toMatchObject({ years: 10, label: 'Next 10 years' });
    expect(report.statement.text).toContain('Memory and thinking: next 10 years');
    const notice =
      "This 10-year figure is read from the dementia risk score's published model, not published by its authors";
    expect(memory.notices.join(' ')).toContain(notice);
    for (const text of [jsonText, htmlText, pdfText]) {
      expect(text).toContain('10-year dementia risk');
      expect(text).toContain('10-year risk of the reference');
      expect(text).not.toMatch(/14 years|14-year/);
    }
    expect(
      JSON.parse(jsonText).outcomes.find((o: { outcomeId: string }) => o.outcomeId === memory.outcomeId),
    ).toMatchObject({ horizon: { years: 10 }, notices: memory.notices });
    expect(htmlText).toContain(notice);
    expect(pdfText).toContain(notice);
  });

  it('never repeats a label inside its value', () => {
    const pairs = [...html.matchAll(/<dt>([^<]*)<\/dt><dd>([^<]*)<\/dd>/g)].map((m): [string, string] => [
      m[1]!,
      m[2]!,
    ]);
    expect(pairs.length).toBeGreaterThan(10);
    for (const [label, value] of pairs)
      expect(value.toLowerCase().startsWith(label.toLowerCase()), label).toBe(false);
    const risks = report.outcomes.map((o) => o.risk.summary).filter((s) => s !== null);
    expect(risks.length).toBeGreaterThan(0);
    for (const summary of risks) expect(summary).not.toMatch(/^Estimated/);
  });

  it('names the published method, with no bracketed internal ids, in html, pdf and json', () => {
    for (const o of report.outcomes) {
      expect(htmlText).toContain(`Method: ${o.method.subModelLabel}.`);
      for (const text of [htmlText, pdfText, jsonText])
        expect(text).not.toContain(`[${o.method.subModelId}]`);
    }
    expect(htmlText).not.toMatch(/\[[a-z0-9]+(-[a-z0-9]+)+\]/);
    expect(pdfText).not.toMatch(/\[[a-z0-9]+(-[a-z0-9]+)+\]/);
  });

  it('asks for lung-cancer inputs only when they are missing', () => {
    const respiratory = report.outcomes.find((o) => o.outcomeId === 'wellbeing.respiratory')!;
    const lung = respiratory.notices.filter((n) => n.includes('lung cancer figure'));
    // The example sends cigarettes a day (10) but no start age.
    expect(lung).toHaveLength(1);
    expect(lung[0]).toMatch(/the age smoking started was not given/);
    expect(lung[0]).not.toMatch(/cigarettes/);
  });

  it('marks a reported answer as reported, not calculated', () => {
    const diabetes = report.derived.items.find((d) => d.key === 'diabetes')!;
    // The example answers "no" and sends an HbA1c below the diabetes range.
    expect(diabetes.value).toBe(false);
    expect(diabetes.provenance).toBe('reported');
    const row = [...html.matchAll(/<tr>([\s\S]*?)<\/tr>/g)]
      .map((m) => visibleText(m[1]!))
      .find((r) => r.includes('Diabetes'));
    expect(row).toBeDefined();
    expect(row).not.toMatch(/Calculated/);
    expect(row).toMatch(/Reported/);
  });

  it('shows ethnicity as sent, and the group the models use on a line of its own', () => {
    const sent = report.derived.items.find((d) => d.key === 'ethnicity');
    const group = report.derived.items.find((d) => d.key === 'ethnicGroup');
    expect(sent).toMatchObject({
      label: 'Ethnicity (as sent)',
      value: 'white_british',
      provenance: 'reported',
    });
    expect(group?.label).toBe('Ethnic group used by the models');
    expect(htmlText).toContain('Ethnicity (as sent)');
    expect(htmlText).toContain('white_british');
    expect(pdfText).toContain('white_british');
    expect(pdfText).toContain('Ethnic group used by the models');
  });
});
