import { inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { renderPdf } from '../../../src/reports/index.js';
import { ByteSink } from '../../../src/reports/pdf/bytes.js';
import { PdfFile, pdfDate, pdfString } from '../../../src/reports/pdf/file.js';
import { fullReport, HOSTILE_TEXT, reportWithPartnerText } from '../fixtures.js';

/**
 * The pdf file's structure, read back byte by byte: what a reader relies on to find the objects
 * (the cross-reference table and the trailer) and to read the streams (their lengths).
 */

interface Parsed {
  objects: Map<number, { body: string; stream: Buffer | null }>;
  trailer: string;
}

function parse(pdf: Buffer): Parsed {
  const text = pdf.toString('latin1');
  expect(text.startsWith('%PDF-1.3\n')).toBe(true);
  expect(text.endsWith('%%EOF\n')).toBe(true);
  const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(text)?.[1]);
  expect(text.slice(startxref, startxref + 5)).toBe('xref\n');
  const [, first, count] = /^xref\n(\d+) (\d+)\n/.exec(text.slice(startxref))!;
  expect(first).toBe('0');
  const tableAt = text.indexOf('\n', startxref + 5) + 1;
  const objects: Parsed['objects'] = new Map();
  for (let num = 0; num < Number(count); num++) {
    // Each entry is exactly 20 bytes (ISO 32000-1 §7.5.4).
    const entry = text.slice(tableAt + num * 20, tableAt + (num + 1) * 20);
    if (num === 0) {
      expect(entry).toBe('0000000000 65535 f \n');
      continue;
    }
    expect(entry).toMatch(/^\d{10} 00000 n \n$/);
    const offset = Number(entry.slice(0, 10));
    const head = `${num} 0 obj\n`;
    expect(text.slice(offset, offset + head.length)).toBe(head);
    const start = offset + head.length;
    const streamAt = text.indexOf('\nstream\n', start);
    const endobj = text.indexOf('\nendobj\n', start);
    if (streamAt !== -1 && streamAt < endobj) {
      const dict = text.slice(start, streamAt);
      const length = Number(/\/Length (\d+)/.exec(dict)?.[1]);
      const dataAt = streamAt + '\nstream\n'.length;
      expect(text.slice(dataAt + length, dataAt + length + '\nendstream\nendobj\n'.length)).toBe(
        '\nendstream\nendobj\n',
      );
      objects.set(num, { body: dict, stream: pdf.subarray(dataAt, dataAt + length) });
    } else {
      objects.set(num, { body: text.slice(start, endobj), stream: null });
    }
  }
  const trailer = text.slice(tableAt + Number(count) * 20);
  expect(trailer.startsWith('trailer\n')).toBe(true);
  expect(Number(/\/Size (\d+)/.exec(trailer)?.[1])).toBe(Number(count));
  return { objects, trailer };
}

/** Every `n 0 R` in the file names an object the table lists. */
function expectReferencesResolve({ objects, trailer }: Parsed): void {
  const bodies = [...[...objects.values()].map((o) => o.body), trailer];
  for (const body of bodies) {
    for (const m of body.matchAll(/(\d+) 0 R/g)) expect(objects.has(Number(m[1])), m[0]).toBe(true);
  }
}

describe('pdf file structure', () => {
  it('has a cross-reference table that locates every object, and streams of their stated length', async () => {
    const parsed = parse(await renderPdf(fullReport()));
    expectReferencesResolve(parsed);
    const pages = [...parsed.objects.values()].filter((o) => /\/Type \/Page\b/.test(o.body));
    expect(pages).toHaveLength(4);
    for (const { body, stream } of parsed.objects.values()) {
      // Every stream is compressed and inflates whole.
      if (stream === null) continue;
      expect(body).toContain('/Filter /FlateDecode');
      const inflated = inflateSync(stream);
      const length1 = /\/Length1 (\d+)/.exec(body);
      if (length1 !== null) expect(inflated.length).toBe(Number(length1[1]));
    }
  });

  it('holds with glyphs beyond the shared subset and with marks placed glyph by glyph', async () => {
    for (const name of [
      'combining marks',
      'right-to-left text with bidi controls',
      'PDF syntax characters',
    ]) {
      const parsed = parse(await renderPdf(reportWithPartnerText(HOSTILE_TEXT[name]!)));
      expectReferencesResolve(parsed);
    }
  });

  it('refuses to end a file with an object missing', () => {
    const file = new PdfFile();
    file.object(1, '<< /Type /Catalog >>');
    file.object(3, '<< >>');
    expect(() => file.end({ root: 1, info: 3, id: '00' })).toThrow(/object 2/);
  });
});

describe('pdf strings and dates', () => {
  it('writes ASCII as is, with the characters a literal string reserves escaped', () => {
    expect(pdfString('Report (draft) \\ 100%')).toBe('(Report \\(draft\\) \\\\ 100%)');
    expect(pdfString('a\nb\rc\td')).toBe('(a\\nb\\rc\\td)');
  });

  it('writes other text as UTF-16BE with a byte order mark, surrogate pairs included', () => {
    expect(pdfString('é')).toBe('(\xFE\xFF\x00\xE9)');
    // U+1F600 is D83D DE00; a reserved byte is escaped wherever it falls (U+0A28 is 0A 28).
    expect(pdfString('😀)')).toBe('(\xFE\xFF\xD8\x3D\xDE\x00\x00\\))');
    expect(pdfString('\u0a28')).toBe('(\xFE\xFF\\n\\()');
  });

  it('writes dates in UTC', () => {
    expect(pdfDate(new Date('2026-11-20T09:31:12.000Z'))).toBe('(D:20261120093112Z)');
    expect(pdfDate(new Date('0999-01-02T03:04:05Z'))).toBe('(D:09990102030405Z)');
  });
});

describe('numbers in page content', () => {
  it('are written with at most two decimals, trailing zeros dropped', () => {
    const sink = new ByteSink(4);
    const written = (n: number) => {
      sink.length = 0;
      sink.num(n);
      return sink.buf.subarray(0, sink.length).toString('latin1');
    };
    const cases: Array<[number, string]> = [
      [0, '0'],
      [-0.001, '0'],
      [48, '48'],
      [786.464219, '786.46'],
      [841.89, '841.89'],
      [0.5, '0.5'],
      [0.05, '0.05'],
      [-21.97, '-21.97'],
      [-0.004, '0'],
      [-0.006, '-0.01'],
      [9.999, '10'],
      [1234.5, '1234.5'],
      [123456789.12, '123456789.12'],
    ];
    for (const [n, text] of cases) expect(written(n), String(n)).toBe(text);
    // Against the decimal the number rounds to, over a range of coordinates.
    for (let h = -200_000; h <= 200_000; h += 37) {
      expect(written(h / 100)).toBe(String(Math.round(h) / 100));
    }
  });
});
