import { type Face, layout, TOKENS } from './pdf-fonts.js';
import type { SubsetFont } from './pdf-subset.js';
import { RecentCache } from './recent-cache.js';

/**
 * A line of text as the page content shows it: the operand of its TJ operator (without the
 * brackets), glyph codes as literal strings of two bytes with kerning between them.
 *
 * Lines and words whose glyphs all come from the seed encode to the same bytes in every
 * document: those are cached per process. Most of a report's lines repeat across reports, and a
 * new line is mostly made of words seen before. Kerning never crosses a space (text is shaped
 * word by word), so a line is its words' operands put together.
 */

const CACHED = 20_000;
const shown: Record<Face, RecentCache<Buffer>> = {
  regular: new RecentCache(CACHED),
  bold: new RecentCache(CACHED),
};

/**
 * Glyph codes are written as literal strings of their two bytes (half the size of hex
 * strings), with the bytes a literal string reserves escaped.
 */
const BYTE = Array.from({ length: 256 }, (_, b) => {
  if (b === 0x28 || b === 0x29 || b === 0x5c) return `\\${String.fromCharCode(b)}`;
  if (b === 0x0a) return '\\n';
  if (b === 0x0d) return '\\r';
  return String.fromCharCode(b);
});

/** Kerning in thousandths of the font size, with at most two decimals. */
function kerning(n: number): string {
  return String(Math.round(n * 100) / 100);
}

const OPEN = 0x28;
const CLOSE = 0x29;

/** Operands one after the other; where one ends with a string and the next starts with one, one string. */
function joined(parts: readonly Buffer[]): Buffer {
  let size = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    size += part.length;
    if (i > 0) size += parts[i - 1]![parts[i - 1]!.length - 1] === CLOSE && part[0] === OPEN ? -2 : 1;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i > 0) {
      if (out[at - 1] === CLOSE && part[0] === OPEN) {
        at -= 1;
        at += part.copy(out, at, 1);
        continue;
      }
      out[at++] = 0x20;
    }
    at += part.copy(out, at);
  }
  return out;
}

/** A line of text that keeps its TJ operand once encoded, when that is the same in every document. */
export class TextLine {
  operand: Buffer | undefined = undefined;

  constructor(readonly text: string) {}
}

/** Whether `tj`, just encoded for `text`, is the operand every document uses (seed glyphs only). */
export function isShared(face: Face, text: string, tj: Buffer): boolean {
  return shown[face].get(text) === tj;
}

/**
 * The TJ operand of `text` in `font` (one document's subset of `face`), or null when a glyph is
 * placed off its advance (a mark over a letter) and the line has to be written glyph by glyph.
 */
export function tjOperand(font: SubsetFont, face: Face, text: string): Buffer | null {
  const cache = shown[face];
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  const tokens = text.match(TOKENS);
  if (tokens === null || tokens.length < 2) return encodeRun(font, face, text);
  const parts: Buffer[] = [];
  let seedOnly = true;
  for (const token of tokens) {
    let part = cache.get(token);
    if (part === undefined) {
      const encoded = encodeRun(font, face, token);
      if (encoded === null) return null;
      part = encoded;
      // encodeRun caches what the seed alone draws.
      if (cache.get(token) === undefined) seedOnly = false;
    }
    parts.push(part);
  }
  const tj = joined(parts);
  if (seedOnly) cache.set(text, tj);
  return tj;
}

function encodeRun(font: SubsetFont, face: Face, text: string): Buffer | null {
  const { glyphs, positions } = layout(face, text);
  let tj = '';
  let run = '';
  let seedOnly = true;
  for (let i = 0; i < glyphs.length; i++) {
    const p = positions[i]!;
    if (p.xOffset !== 0 || p.yOffset !== 0) return null;
    const glyph = glyphs[i]!;
    if (!font.isSeed(glyph)) seedOnly = false;
    const code = font.code(glyph);
    run += BYTE[code >> 8]! + BYTE[code & 255]!;
    const kern = p.xAdvance - p.advanceWidth;
    if (kern !== 0) {
      tj += `(${run}) ${kerning(-kern)} `;
      run = '';
    }
  }
  tj = run === '' ? tj.slice(0, -1) : `${tj}(${run})`;
  const bytes = Buffer.from(tj === '' ? '()' : tj, 'latin1');
  if (seedOnly) shown[face].set(text, bytes);
  return bytes;
}
