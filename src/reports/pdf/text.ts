import { RecentCache } from '../recent-cache.js';
import type { ByteSink } from './bytes.js';
import { type Face, hasDigit, layout, plainShaping, spacesEnd, wordEnd } from './fonts.js';
import { NOT_PLAIN_PAIR, type PlainShaping } from './plain.js';
import type { SubsetFont } from './subset.js';

/**
 * A line of text as the page content shows it: the operand of its TJ operator (without the
 * brackets), glyph codes as literal strings of two bytes, with kerning between them where a
 * glyph's advance differs from its own width.
 *
 * Text is shaped word by word (a word with the spaces after it, as pdfkit shaped text), so no
 * kerning crosses into the next word and a line is its words' operands one after the other.
 * Plain words are written character by character (plain.ts). Other words (f-ligatures,
 * other scripts) are shaped by fontkit, and their operands kept per process when all their
 * glyphs come from the seed, so that their codes are the same in every document.
 */

const CACHED = 20_000;
const words: Record<Face, RecentCache<Buffer>> = {
  regular: new RecentCache(CACHED),
  bold: new RecentCache(CACHED),
};

const OPEN = 0x28;
const CLOSE = 0x29;
const BACKSLASH = 0x5c;
const SP = 0x20;

/** One byte of a literal string, escaped where the string syntax reserves it. */
function stringByte(out: ByteSink, b: number): void {
  if (b === OPEN || b === CLOSE || b === BACKSLASH) {
    out.byte(BACKSLASH);
    out.byte(b);
  } else if (b === 0x0a) {
    out.byte(BACKSLASH);
    out.byte(0x6e);
  } else if (b === 0x0d) {
    out.byte(BACKSLASH);
    out.byte(0x72);
  } else out.byte(b);
}

/** A line of text that keeps its TJ operand once written, when that is the same in every document. */
export class TextLine {
  operand: Buffer | undefined = undefined;

  constructor(readonly text: string) {}
}

/** Seed codes by plain index (plain.ts), per face: -1 not known yet, -2 not in the seed. */
const plainCodes: Record<Face, Int32Array> = {
  regular: new Int32Array(256).fill(-1),
  bold: new Int32Array(256).fill(-1),
};

/** Writes one line's operand; one instance, used by one line at a time. */
class OperandWriter {
  private out!: ByteSink;
  private font!: SubsetFont;
  private plain!: PlainShaping;
  private codes!: Int32Array;
  /** Whether a literal string is open (the last glyph had no kerning after it). */
  private open = false;

  write(font: SubsetFont, face: Face, text: string, out: ByteSink): boolean | null {
    this.out = out;
    this.font = font;
    this.plain = plainShaping(face);
    this.codes = plainCodes[face];
    const begin = out.length;
    let seedOnly = true;
    out.byte(OPEN);
    this.open = true;
    const n = text.length;
    let i = 0;
    while (i < n) {
      const start = i;
      const word = wordEnd(text, i);
      i = spacesEnd(text, word);
      const mark = out.length;
      const wasOpen = this.open;
      // A word with digits is put together from its characters: no kerning inside it.
      if (this.plainWord(text, start, i, i - start > 1 && hasDigit(text, start, word))) continue;
      out.length = mark;
      this.open = wasOpen;
      const operand = shapedWord(font, face, text.slice(start, i));
      if (operand === null) {
        out.length = begin;
        return null;
      }
      if (!shapedSeedOnly) seedOnly = false;
      // The word's operand starts with a string: it continues an open one.
      if (this.open) out.bytes(operand.subarray(1));
      else {
        out.byte(SP);
        out.bytes(operand);
      }
      this.open = out.buf[out.length - 1] === CLOSE;
      if (this.open) out.length -= 1;
    }
    if (this.open) out.byte(CLOSE);
    return seedOnly;
  }

  /** Writes one plain word of seed glyphs; false (with part of it written) when it is not one. */
  private plainWord(line: string, start: number, end: number, apart: boolean): boolean {
    const { plain, codes, out } = this;
    let b = plain.charIndex(line.charCodeAt(start));
    if (b < 0) return false;
    for (let j = start; j < end; j++) {
      const a = b;
      let advance: number;
      if (j + 1 < end) {
        b = plain.charIndex(line.charCodeAt(j + 1));
        if (b < 0) return false;
      }
      if (apart || j + 1 === end) advance = plain.alone[a]!;
      else {
        const slot = plain.pairSlot(a, b, line.charCodeAt(j), line.charCodeAt(j + 1));
        if (slot === NOT_PLAIN_PAIR) return false;
        advance = plain.advances[slot]!;
      }
      let code = codes[a]!;
      if (code === -1) {
        code = this.font.seedCode(plain.glyphs[a]!.id);
        codes[a] = code < 0 ? -2 : code;
      }
      if (code < 0) return false;
      if (!this.open) {
        out.byte(SP);
        out.byte(OPEN);
        this.open = true;
      }
      stringByte(out, code >> 8);
      stringByte(out, code & 255);
      const kern = advance - plain.widths[a]!;
      if (kern !== 0) {
        out.byte(CLOSE);
        out.byte(SP);
        out.hundredths(Math.round(-kern * 100));
        this.open = false;
      }
    }
    return true;
  }
}

const writer = new OperandWriter();

/**
 * Writes the TJ operand of `text` in `font` (one document's subset of `face`) to `out`.
 * Returns whether every glyph is a seed glyph (the bytes are then the same in every document),
 * or null, with nothing written, when a glyph is placed off its advance (a mark over a letter)
 * and the line has to be written glyph by glyph.
 */
export function writeOperand(font: SubsetFont, face: Face, text: string, out: ByteSink): boolean | null {
  return writer.write(font, face, text, out);
}

/** Kerning in thousandths of the font size, with at most two decimals. */
function kerning(n: number): string {
  return String(Math.round(n * 100) / 100);
}

const BYTE = Array.from({ length: 256 }, (_, b) => {
  if (b === OPEN || b === CLOSE || b === BACKSLASH) return `\\${String.fromCharCode(b)}`;
  if (b === 0x0a) return '\\n';
  if (b === 0x0d) return '\\r';
  return String.fromCharCode(b);
});

/** Whether the last word `shapedWord` returned has seed glyphs only. */
let shapedSeedOnly = true;

/** A word shaped by fontkit: its operand, or null when a glyph is placed off its advance. */
function shapedWord(font: SubsetFont, face: Face, word: string): Buffer | null {
  shapedSeedOnly = true;
  const cached = words[face].get(word);
  if (cached !== undefined) return cached;
  const { glyphs, positions } = layout(face, word);
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
  if (seedOnly) words[face].set(word, bytes);
  shapedSeedOnly = seedOnly;
  return bytes;
}
