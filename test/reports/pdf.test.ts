import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPdf } from '../../src/reports/index.js';
import { documentsOnlyReport, fullReport, ROOT } from './fixtures.js';

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
    expect(text).toContain('healthspan-wellbeing 1.0.0');
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
