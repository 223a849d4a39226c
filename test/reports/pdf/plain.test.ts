import { describe, expect, it } from 'vitest';
import { ByteSink } from '../../../src/reports/pdf/bytes.js';
import { type Face, fontOf, TOKENS, textWidth, wrap } from '../../../src/reports/pdf/fonts.js';
import { SubsetFont } from '../../../src/reports/pdf/subset.js';
import { writeOperand } from '../../../src/reports/pdf/text.js';
import { documentsOnlyReport, fullReport, HOSTILE_TEXT } from '../fixtures.js';

/**
 * Text measured and encoded character by character (plain.ts, text.ts in src/reports/pdf/) against fontkit
 * shaping each word, the way pdfkit shaped text: the same widths to the last bit, the same glyph
 * codes and kerning, the same line breaks.
 */

const FACES: readonly Face[] = ['regular', 'bold'];

/** A word's glyphs and positions as fontkit shapes it (words with digits: each character alone). */
function shapedWord(face: Face, word: string) {
  const font = fontOf(face);
  const scale = 1000 / font.unitsPerEm;
  const parts = word.length > 1 && /[0-9]/.test(word) ? [...word] : [word];
  const glyphs: Array<{ id: number; advanceWidth: number; codePoints: readonly number[] }> = [];
  const positions: Array<{ xAdvance: number; xOffset: number; yOffset: number; advanceWidth: number }> = [];
  let advance = 0;
  for (const part of parts) {
    const run = font.layout(part);
    let partAdvance = 0;
    run.positions.forEach((p, i) => {
      const glyph = run.glyphs[i]!;
      glyphs.push(glyph);
      positions.push({
        xAdvance: p.xAdvance * scale,
        xOffset: p.xOffset * scale,
        yOffset: p.yOffset * scale,
        advanceWidth: glyph.advanceWidth * scale,
      });
      partAdvance += p.xAdvance * scale;
    });
    advance += partAdvance;
  }
  return { glyphs, positions, advance };
}

function referenceWidth(face: Face, text: string, size: number): number {
  let line = 0;
  for (const token of text.match(TOKENS) ?? []) line += shapedWord(face, token).advance;
  return (line / 1000) * size;
}

const escaped = (b: number) =>
  b === 0x28 || b === 0x29 || b === 0x5c
    ? `\\${String.fromCharCode(b)}`
    : b === 0x0a
      ? '\\n'
      : b === 0x0d
        ? '\\r'
        : String.fromCharCode(b);

/** The TJ operand as pdfkit-era code wrote it: runs of two-byte codes, kerning between. */
function referenceOperand(font: SubsetFont, face: Face, text: string): string | null {
  let line = '';
  for (const token of text.match(TOKENS) ?? []) {
    const { glyphs, positions } = shapedWord(face, token);
    let tj = '';
    let run = '';
    for (let i = 0; i < glyphs.length; i++) {
      const p = positions[i]!;
      if (p.xOffset !== 0 || p.yOffset !== 0) return null;
      const code = font.code(glyphs[i]!);
      run += escaped(code >> 8) + escaped(code & 255);
      const kern = p.xAdvance - p.advanceWidth;
      if (kern !== 0) {
        tj += `(${run}) ${Math.round(-kern * 100) / 100} `;
        run = '';
      }
    }
    tj = run === '' ? tj.slice(0, -1) : `${tj}(${run})`;
    if (tj === '') tj = '()';
    line = line === '' ? tj : line.endsWith(')') ? `${line.slice(0, -1)}${tj.slice(1)}` : `${line} ${tj}`;
  }
  return line;
}

/** Every string of a report, and each word of it. */
function strings(value: unknown, out: Set<string>): Set<string> {
  if (typeof value === 'string') {
    out.add(value);
    for (const word of value.split(' ')) out.add(word);
  } else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** mulberry32 */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random text over the report's alphabet, with spaces, ligature pairs, marks, other scripts. */
function randomTexts(count: number, seed: number): string[] {
  const rand = prng(seed);
  const ascii = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i));
  const alphabet = [
    ...ascii,
    ...' eeeaaoottfffiill   '.split(''),
    ...'µ²³·–—‘’“”…≤≥×°•äöüÄÖÜéèàçÅøß'.split(''),
    'fi',
    'ff',
    'ffl',
    'e\u0301',
    'שלום',
    'مرحبا',
    '\u200b',
    '患',
    '👩🏽',
    'AV',
    'To',
    'Ty',
  ];
  return Array.from({ length: count }, () => {
    const n = 1 + Math.floor(rand() * 16);
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(rand() * alphabet.length)];
    return s;
  });
}

const corpus = [
  ...strings(fullReport(), new Set()),
  ...strings(documentsOnlyReport(), new Set()),
  ...Object.values(HOSTILE_TEXT),
  ...randomTexts(2500, 20261126),
];

describe('plain text shaped character by character', () => {
  it.each(FACES)('measures every text as fontkit shapes it, bit for bit (%s)', (face) => {
    for (const text of corpus) {
      expect(textWidth(face, text, 9.5), JSON.stringify(text)).toBe(referenceWidth(face, text, 9.5));
    }
  });

  it.each(FACES)('writes the glyph codes and kerning fontkit shaping gives (%s)', (face) => {
    const font = new SubsetFont(face);
    const out = new ByteSink(64);
    for (const text of corpus) {
      const expected = referenceOperand(font, face, text);
      out.length = 0;
      const shared = writeOperand(font, face, text, out);
      if (expected === null) expect(shared, JSON.stringify(text)).toBe(null);
      else expect(out.buf.subarray(0, out.length).toString('latin1'), JSON.stringify(text)).toBe(expected);
    }
  });

  it.each(FACES)('breaks lines where measuring each word would (%s)', (face) => {
    const space = textWidth(face, ' ', 8.5);
    for (const text of corpus) {
      for (const width of [60, 119.28, 499.28]) {
        const words = text.split(' ').filter((w) => w !== '');
        if (words.some((w) => textWidth(face, w, 8.5) > width)) continue;
        const expected: string[] = [];
        let line = '';
        let lineW = 0;
        for (const word of words) {
          const w = textWidth(face, word, 8.5);
          if (line !== '' && lineW + space + w <= width) {
            line += ` ${word}`;
            lineW += space + w;
          } else {
            if (line !== '') expected.push(line);
            line = word;
            lineW = w;
          }
        }
        expected.push(line);
        expect(wrap(face, 8.5, text, width), JSON.stringify(text)).toEqual(expected);
      }
    }
  });
});
