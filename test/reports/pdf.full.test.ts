import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdf } from '../../src/reports/index.js';
import { printable, textWidth, wrap } from '../../src/reports/pdf/index.js';
import { documentsOnlyReport, fullReport, HOSTILE_TEXT, ROOT, reportWithPartnerText } from './fixtures.js';

/** The pdf artifact checked with poppler's own tools. */

const dir = mkdtempSync(path.join(tmpdir(), 'healthspan-pdf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function save(name: string, bytes: Buffer): string {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

/** Runs a poppler tool; it must succeed without complaining (poppler reports syntax errors on stderr). */
function run(tool: string, ...args: string[]): string {
  const out = spawnSync(tool, args, { encoding: 'utf8' });
  expect(out.status, out.stderr).toBe(0);
  expect(out.stderr).toBe('');
  return out.stdout;
}

function info(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of run('pdfinfo', '-isodates', file).split('\n')) {
    const m = /^([^:]+):\s*(.*)$/.exec(line);
    if (m !== null) out[m[1]!] = m[2]!;
  }
  return out;
}

describe('pdf report with poppler', () => {
  const report = fullReport();
  let bytes: Buffer;
  let file: string;
  let text: string;
  let pages: number;

  beforeAll(async () => {
    bytes = await renderPdf(report);
    file = save('report.pdf', bytes);
    text = run('pdftotext', '-layout', file, '-');
    pages = Number(info(file).Pages);
  });

  it('is a valid A4 pdf with the expected pages and the document dates of generatedAt', () => {
    const meta = info(file);
    expect(meta.Pages).toBe('4');
    const size = /^([\d.]+) x ([\d.]+) pts/.exec(meta['Page size'] ?? '');
    expect(Number(size?.[1])).toBeCloseTo(595.28, 1);
    expect(Number(size?.[2])).toBeCloseTo(841.89, 1);
    expect(meta.CreationDate).toBe('2026-11-20T09:31:12Z');
    expect(meta.ModDate).toBe('2026-11-20T09:31:12Z');
    expect(meta.Title).toBe('Wellbeing report: subj-9f8e7d');
    expect(meta.Encrypted).toBe('no');
  });

  it('embeds its fonts', () => {
    const rows = run('pdffonts', file)
      .trim()
      .split('\n')
      .slice(2)
      .map((row) => row.trim().split(/\s+/));
    const names = rows.map((r) => r[0]!.replace(/^[A-Z]{6}\+/, ''));
    expect(names.sort()).toEqual(['DejaVuSans', 'DejaVuSans-Bold']);
    for (const r of rows) {
      // name, type (2 words), encoding, emb, sub, uni, object, id
      expect(r.slice(-5, -2), r.join(' ')).toEqual(['yes', 'yes', 'yes']);
    }
  });

  it('holds every outcome title, every marker code, the statement and the page numbers', () => {
    for (const o of report.outcomes) expect(text).toContain(o.focus);
    for (const o of report.outcomes) if (o.status !== 'failed') expect(text).toContain(o.scoreText);
    for (const m of report.markers.items) expect(text).toContain(m.code);
    for (const m of report.markers.items) expect(text).toContain(m.name);
    expect(text).toContain(report.statement.heading);
    expect(text).toContain('healthspan-wellbeing 1.1.0');
    for (let n = 1; n <= pages; n++) expect(text).toContain(`Page ${n} of ${pages}`);
    // One footer per page, and the words survive extraction (glyph codes map back to text).
    expect(text.match(/Page \d+ of \d+/g)).toHaveLength(pages);
    expect(text).toContain(
      'Your total cholesterol is above the target and accounts for most of the difference.',
    );
  });

  it('gives the same bytes for the same report', async () => {
    const again = await renderPdf(fullReport());
    expect(again.equals(bytes)).toBe(true);
  });

  it('renders a documents-only report', async () => {
    const docsFile = save('documents.pdf', await renderPdf(documentsOnlyReport()));
    expect(Number(info(docsFile).Pages)).toBeGreaterThanOrEqual(2);
    const docsText = run('pdftotext', docsFile, '-');
    expect(docsText).toContain('Not measured');
    expect(docsText).toContain('No blood test results were included');
  });

  it('renders page 1 as an image (refreshing the README picture on request)', () => {
    const dir = process.env.UPDATE_DOCS_IMAGES === '1' ? 'docs/images' : 'test-output';
    mkdirSync(path.join(ROOT, dir), { recursive: true });
    const prefix = path.join(ROOT, dir, 'report-pdf-page1');
    run('pdftoppm', '-png', '-r', '60', '-f', '1', '-l', '1', '-singlefile', file, prefix);
    const png = readFileSync(`${prefix}.png`);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  });
});

const graphemes = (text: string) =>
  Array.from(new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(text), (g) => g.segment);

describe('pdf report with long, hostile and non-Latin partner text', () => {
  const cases = Object.entries(HOSTILE_TEXT);

  it.each(cases)('renders %s within the usual four pages', async (_name, text) => {
    const report = reportWithPartnerText(text);
    const bytes = await renderPdf(report);
    const file = save(`hostile-${Math.abs(hash(text))}.pdf`, bytes);
    // poppler parses it without a complaint (run() checks stderr), on the usual A4 pages.
    const meta = info(file);
    expect(meta.Pages).toBe('4');
    expect(meta['Page size']).toMatch(/^595\.2\d* x 841\.8\d* pts/);
    // The document's title keeps the reference exactly (as Unicode, not as drawn glyphs).
    expect(meta.Title).toBe(`Wellbeing report: ${text}`);
    const extracted = run('pdftotext', '-layout', file, '-');
    expect(extracted).toContain('Subject reference');
    expect(extracted).toContain('Submission reference');
    for (let n = 1; n <= 4; n++) expect(extracted).toContain(`Page ${n} of 4`);
    // The whole report is still there after the masthead: its last marker and the statement.
    expect(extracted).toContain(report.markers.items.at(-1)!.name);
    expect(extracted).toContain(report.statement.heading);
    // Same report, same bytes.
    expect((await renderPdf(reportWithPartnerText(text))).equals(bytes)).toBe(true);
  });

  it.each([
    'markup and script',
    'PDF syntax characters',
    'right-to-left text with bidi controls',
    'combining marks',
    'zero-width and invisible characters',
    'one unbroken 512-letter word',
  ])('prints %s as drawn: the glyphs extract back to the text', async (name) => {
    const text = HOSTILE_TEXT[name]!;
    const file = save(`printed-${Math.abs(hash(text))}.pdf`, await renderPdf(reportWithPartnerText(text)));
    const extracted = run('pdftotext', '-raw', file, '-');
    // The masthead shows two lines of each reference (the value column, 119.28 pt of bold 8 pt);
    // their glyphs map back to the same text. The bidi and invisible controls are drawn too, so
    // the comparison is on what extraction keeps of them: poppler reorders right-to-left runs.
    const shown = wrap('bold', 8, printable('bold', text), 119.28).slice(0, 2);
    expect(shown.join('').length).toBeGreaterThan(20);
    const visible = (s: string) => s.replace(/[\p{Default_Ignorable_Code_Point}\p{Mn}\s]/gu, '');
    if (name === 'right-to-left text with bidi controls') {
      expect(extracted).toContain('שלום');
      expect(extracted).toContain('مرحبا');
    } else {
      for (const line of shown) expect(visible(extracted)).toContain(visible(line));
    }
  });

  it('shows characters the font cannot draw as U+FFFD instead of dropping them', async () => {
    // DejaVu has no CJK or emoji glyphs: each such character prints as one replacement mark.
    expect(printable('bold', '患者 12')).toBe('\uFFFD\uFFFD 12');
    expect(printable('bold', 'a👩🏽‍⚕️b 🇩🇪')).toBe('a\uFFFDb \uFFFD');
    // Invisible characters it has no glyph for (bidi isolates) are left out, not marked.
    expect(printable('bold', 'a\u2067b\u2069c\u180Ed')).toBe('abcd');
    // What it can draw stays as it is, accents and invisible characters included.
    for (const kept of [
      'Ze\u0301ro',
      'Zéro',
      'שלום مرحبا \u202Eevil\u202C',
      'a\u200Bb\u200Dc\uFEFFd',
      '⚕ µ²',
    ]) {
      expect(printable('bold', kept)).toBe(kept);
    }
    const file = save(
      'hostile-cjk.pdf',
      await renderPdf(reportWithPartnerText(HOSTILE_TEXT['Chinese, Japanese and Korean']!)),
    );
    const extracted = run('pdftotext', file, '-');
    expect(extracted).toContain('\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD\uFFFD');
  });

  it.each(cases)('wraps %s into lines that fit, cut only between characters', (_name, text) => {
    const width = 119.28;
    const lines = wrap('bold', 8, text, width);
    for (const line of lines) {
      // A line wider than the column is a single character that cannot be cut.
      if (textWidth('bold', line, 8) > width) expect(graphemes(line)).toHaveLength(1);
    }
    // Nothing lost or split: the lines put back together (at the spaces wrapping removed) are
    // the text's words, and every cut falls between two characters.
    const words = text.split(' ').filter((w) => w !== '');
    expect(
      lines
        .join(' ')
        .split(' ')
        .filter((w) => w !== '')
        .join(''),
    ).toBe(words.join(''));
    const boundaries = new Set<number>();
    let at = 0;
    for (const g of graphemes(words.join(''))) {
      boundaries.add(at);
      at += g.length;
    }
    boundaries.add(at);
    let offset = 0;
    for (const line of lines) {
      for (const piece of line.split(' ').filter((w) => w !== '')) {
        expect(boundaries.has(offset)).toBe(true);
        offset += piece.length;
      }
    }
  });
});

function hash(text: string): number {
  let h = 0;
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0;
  return h;
}
