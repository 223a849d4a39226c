import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { scoreSubmission } from '../../src/domain/model/index.js';
import { buildReport, renderArtifact, reportSchema } from '../../src/reports/index.js';
import { documentsOnlySubmission, input, markerSubmission, NOW } from './fixtures.js';

/** The example submission scored by the real model, rendered to all three artifacts. */

const dir = mkdtempSync(path.join(tmpdir(), 'healthspan-scored-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each([
  ['with markers', markerSubmission],
  ['documents only', documentsOnlySubmission],
])('a scored submission (%s)', (name, submission) => {
  it('builds a report the schema accepts and renders json, html and pdf', async () => {
    const sub = submission();
    const result = scoreSubmission(sub, { now: NOW });
    const report = buildReport(input(sub, result));
    expect(reportSchema.safeParse(report).success).toBe(true);
    expect(report.outcomes.map((o) => o.outcomeId)).toEqual(sub.options.requestedOutcomes);
    expect(report.model).toEqual(result.model);

    const json = await renderArtifact('json', report);
    expect(JSON.parse(json.body.toString('utf8'))).toEqual(report);

    const html = (await renderArtifact('html', report)).body.toString('utf8');
    for (const o of report.outcomes) expect(html).toContain(o.focus);
    for (const m of report.markers.items) expect(html).toContain(m.code);

    const pdf = await renderArtifact('pdf', report);
    expect(pdf.contentType).toBe('application/pdf');
    const file = path.join(dir, `${name.replace(/\W+/g, '-')}.pdf`);
    writeFileSync(file, pdf.body);
    expect(execFileSync('pdfinfo', [file], { encoding: 'utf8' })).toMatch(
      /Page size:\s+595\.28 x 841\.89 pts/,
    );
    const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
    for (const o of report.outcomes) expect(text).toContain(o.focus);
  });
});
