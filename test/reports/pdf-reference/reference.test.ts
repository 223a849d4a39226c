import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildReport, type Report, renderPdf } from '../../../src/reports/index.js';
import {
  CARDIOVASCULAR,
  COGNITIVE,
  documentsOnlyReport,
  fullReport,
  HOSTILE_TEXT,
  input,
  markerSubmission,
  modelResult,
  RENAL,
  RESPIRATORY,
  reportWithPartnerText,
} from '../fixtures.js';
import { renderPdfWithPdfkit } from './render-pdfkit.js';

/**
 * Our PDF writer against a library: the same report models rendered by our writer and by pdfkit
 * (the renderer pdfkit ran before ours replaced it, render-pdfkit.ts), then read back by poppler.
 * The text pdftotext extracts must be the same word for word, and the page count the same, so a
 * change to fonts, subsets, ToUnicode maps, text encoding or layout that loses or alters text
 * shows as a diff against pdfkit's file.
 *
 * The one normalisation: text is compared as words (split at whitespace), extracted twice, with
 * `-raw` (in the order the page draws it) and with `-layout` (placed by position, so text drawn
 * in the wrong place moves). Not pdftotext's default reading order: it breaks ties between lines
 * at the same height by their exact position, and our writer writes coordinates to 0.01 pt where
 * pdfkit writes them to 0.000001 pt, so the masthead's first line ("HEALTHSPAN", 48 pt down) sits
 * 0.002 pt above the references beside it in our file and level with them in pdfkit's, and comes
 * first in ours, second in pdfkit's. Nothing is lost or changed; only that order differs.
 */

const dir = mkdtempSync(path.join(tmpdir(), 'healthspan-pdf-reference-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs a poppler tool; it must succeed without complaining (poppler reports syntax errors on stderr). */
function run(tool: string, ...args: string[]): string {
  const out = spawnSync(tool, args, { encoding: 'utf8' });
  expect(out.status, out.stderr).toBe(0);
  expect(out.stderr).toBe('');
  return out.stdout;
}

interface ReadBack {
  pages: number;
  /** In the order the pages draw them (pdftotext -raw). */
  drawn: string[];
  /** As placed on the page (pdftotext -layout). */
  placed: string[];
}

const words = (text: string) => text.split(/\s+/).filter((w) => w !== '');

let files = 0;

function readBack(bytes: Buffer): ReadBack {
  const file = path.join(dir, `${++files}.pdf`);
  writeFileSync(file, bytes);
  return {
    pages: Number(/^Pages:\s*(\d+)$/m.exec(run('pdfinfo', file))?.[1]),
    drawn: words(run('pdftotext', '-raw', file, '-')),
    placed: words(run('pdftotext', '-layout', file, '-')),
  };
}

/** Longer notes and explanations, so that blocks wrap over several lines and move to the next page. */
function longTextReport(): Report {
  const long = (text: string) => `${text} ${text} ${text}`;
  const outcomes = [CARDIOVASCULAR, COGNITIVE, RENAL, RESPIRATORY].map((o) => ({
    ...o,
    notices: [...o.notices, long('This note is long on purpose, so that it wraps over several lines.')],
    explanation: o.explanation.map(long),
  }));
  return buildReport(input(markerSubmission(), modelResult(outcomes)));
}

const MODELS: ReadonlyArray<readonly [string, () => Report]> = [
  ['the full report', fullReport],
  ['a documents-only report', documentsOnlyReport],
  ['a report whose one outcome failed', () => buildReport(input(markerSubmission(), modelResult([RENAL])))],
  ['a report with long notes and explanations', longTextReport],
  ...Object.entries(HOSTILE_TEXT).map(
    ([name, text]) => [`partner text: ${name}`, () => reportWithPartnerText(text)] as const,
  ),
];

describe('our pdf writer against pdfkit', () => {
  it.each(MODELS)('%s: the same words and the same pages', async (_name, model) => {
    const ours = readBack(await renderPdf(model()));
    const reference = readBack(await renderPdfWithPdfkit(model()));
    expect(reference.drawn.length).toBeGreaterThan(300);
    expect(ours.drawn).toEqual(reference.drawn);
    expect(ours.placed).toEqual(reference.placed);
    expect(ours.pages).toBe(reference.pages);
  });
});
