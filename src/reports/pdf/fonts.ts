import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { RecentCache } from '../recent-cache.js';
import { type PlainPosition, PlainShaping } from './plain.js';

/**
 * The DejaVu fonts, parsed once per process by fontkit, and the caches that keep text layout
 * cheap: the shaped glyph run of each word and line, measured widths and wrapped lines.
 *
 * - `layout`: a line's glyphs and positions, put together from its words (with the spaces that
 *   follow them, as pdfkit shaped text, so no kerning crosses a space); words with digits from
 *   their characters. Shaping depends on the font alone, so words are shared by every document.
 * - `textWidth` and `wrap`: measured widths and wrapped lines, for the renderer's own layout.
 *
 * fontkit (pdfkit's font engine, which the files were written with until the pdf writer of our
 * own replaced pdfkit) is a dependency of its own; it ships no types, so the part used is typed
 * here.
 */

const require = createRequire(import.meta.url);

export interface FontkitGlyph {
  readonly id: number;
  readonly codePoints: readonly number[];
  /** In font units. */
  readonly advanceWidth: number;
}

interface FontkitPosition {
  readonly xAdvance: number;
  readonly xOffset: number;
  readonly yOffset: number;
}

interface FontkitRun {
  readonly glyphs: FontkitGlyph[];
  readonly positions: FontkitPosition[];
}

export interface FontkitSubset {
  readonly glyphs: readonly number[];
  includeGlyph(glyph: number): number;
  encode(): Uint8Array;
}

export interface FontkitFont {
  readonly unitsPerEm: number;
  readonly numGlyphs: number;
  readonly postscriptName: string;
  readonly ascent: number;
  readonly descent: number;
  readonly capHeight: number | undefined;
  readonly xHeight: number | undefined;
  readonly italicAngle: number;
  readonly bbox: {
    readonly minX: number;
    readonly minY: number;
    readonly maxX: number;
    readonly maxY: number;
  };
  readonly post: { readonly isFixedPitch: number };
  readonly head: { readonly macStyle: { readonly italic: boolean } };
  readonly 'OS/2': { readonly sFamilyClass: number } | undefined;
  getGlyph(id: number): FontkitGlyph;
  hasGlyphForCodePoint(codePoint: number): boolean;
  layout(text: string): FontkitRun;
  createSubset(): FontkitSubset;
}

const fontkit = require('fontkit') as {
  create(bytes: Uint8Array): FontkitFont;
};

/**
 * A glyph's placement in thousandths of the font size (pdf text space units); where `xAdvance`
 * differs from the glyph's own `advanceWidth`, the difference is kerning.
 */
export type Position = PlainPosition;

export interface Run {
  readonly glyphs: readonly FontkitGlyph[];
  readonly positions: readonly Position[];
  /** In thousandths of the font size. */
  readonly advanceWidth: number;
}

export type Face = 'regular' | 'bold';

const CACHED = 20_000;

/** Words with the spaces that follow them, as pdfkit itself shapes text ("a b" → "a ", "b"). */
export const TOKENS = /[^ ]+ *| +/g;
const SPACE = 0x20;

/**
 * Words with digits (values, dates, references) are new in most reports: they are put together
 * from their characters, already shaped, and not kept. DejaVu's digits are tabular and unkerned.
 */
const HAS_DIGIT = /[0-9]/;

/** Where the word (its characters up to the next space) that starts at `start` ends. */
export function wordEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length && text.charCodeAt(i) !== SPACE) i++;
  return i;
}

/** Where the spaces from `start` end. */
export function spacesEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length && text.charCodeAt(i) === SPACE) i++;
  return i;
}

/** Whether `text` holds a digit between `start` and `end`. */
export function hasDigit(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x30 && c <= 0x39) return true;
  }
  return false;
}

class ShapedFont {
  /** Words without digits, and single characters. */
  private readonly words = new RecentCache<Run>(CACHED);
  private readonly scale: number;
  readonly plain: PlainShaping;

  constructor(readonly font: FontkitFont) {
    this.scale = 1000 / font.unitsPerEm;
    this.plain = new PlainShaping((text) => (text.length === 1 ? this.shape(text) : this.shaped(text)));
  }

  /** The glyph run of one line of text. */
  layout(text: string): Run {
    const tokens = text.match(TOKENS);
    return tokens === null || tokens.length < 2 ? this.word(text) : this.join(tokens);
  }

  /** The advance width of a line in thousandths of the font size, added up as `layout` does. */
  advance(text: string): number {
    let line = 0;
    const n = text.length;
    let i = 0;
    while (i < n) {
      const start = i;
      const word = wordEnd(text, i);
      i = spacesEnd(text, word);
      line += this.wordAdvance(text, start, i, i - start > 1 && hasDigit(text, start, word));
    }
    return line;
  }

  /** The advance of one word of `text` (from `start` to `end`, spaces after it included). */
  wordAdvance(text: string, start: number, end: number, apart: boolean): number {
    const plain = this.plain.wordAdvance(text, start, end, apart);
    return Number.isNaN(plain) ? this.shapedAdvance(text.slice(start, end), apart) : plain;
  }

  private shapedAdvance(text: string, apart: boolean): number {
    if (!apart) return this.shape(text).advanceWidth;
    let advanceWidth = 0;
    for (const ch of text) advanceWidth += this.shape(ch).advanceWidth;
    return advanceWidth;
  }

  private word(text: string): Run {
    return text.length > 1 && HAS_DIGIT.test(text) ? this.join([...text]) : this.shape(text);
  }

  private join(parts: readonly string[]): Run {
    const glyphs: FontkitGlyph[] = [];
    const positions: Position[] = [];
    let advanceWidth = 0;
    for (const token of parts) {
      const part = this.word(token);
      for (const g of part.glyphs) glyphs.push(g);
      for (const p of part.positions) positions.push(p);
      advanceWidth += part.advanceWidth;
    }
    return { glyphs, positions, advanceWidth };
  }

  private shape(text: string): Run {
    return this.words.get(text) ?? this.words.set(text, this.shaped(text));
  }

  /** fontkit's layout of `text`, in thousandths of the font size. */
  private shaped(text: string): Run {
    const shaped = this.font.layout(text);
    const { scale } = this;
    const positions = shaped.positions.map(
      (p, i): Position => ({
        xAdvance: p.xAdvance * scale,
        xOffset: p.xOffset * scale,
        yOffset: p.yOffset * scale,
        advanceWidth: shaped.glyphs[i]!.advanceWidth * scale,
      }),
    );
    let advanceWidth = 0;
    for (const p of positions) advanceWidth += p.xAdvance;
    return { glyphs: shaped.glyphs, positions, advanceWidth };
  }
}

function loadFont(file: string): ShapedFont {
  return new ShapedFont(fontkit.create(readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${file}`))));
}

const FONTS: Readonly<Record<Face, ShapedFont>> = {
  regular: loadFont('DejaVuSans.ttf'),
  bold: loadFont('DejaVuSans-Bold.ttf'),
};

/** The parsed font of a face, for embedding. */
export function fontOf(face: Face): FontkitFont {
  return FONTS[face].font;
}

/** Per-character shaping of plain text in `face`. */
export function plainShaping(face: Face): PlainShaping {
  return FONTS[face].plain;
}

/** The shaped glyphs of one line of `face`. */
export function layout(face: Face, text: string): Run {
  return FONTS[face].layout(text);
}

/** The advance width of `text` at font size `size`, in points. */
export function textWidth(face: Face, text: string, size: number): number {
  return (FONTS[face].advance(text) / 1000) * size;
}

/** Characters as a reader sees them: a base letter with its marks, an emoji sequence. */
const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });
const PLAIN_ASCII = /^[\x20-\x7e]*$/;

/** Characters with no visible form of their own (zero-width, bidi controls, variation selectors). */
const INVISIBLE = /^\p{Default_Ignorable_Code_Point}$/u;

/**
 * `text` with each character (grapheme cluster) that `face` cannot draw replaced by U+FFFD (�).
 * DejaVu has no CJK and no emoji: such characters were drawn as empty boxes and vanished from
 * the text a reader copies or extracts, so a partner's reference printed as a different one
 * without a trace. Invisible characters the font lacks (some bidi isolates) are left out, as any
 * viewer shows them. For text from outside the service (partner references, laboratory names);
 * the report's own text is all covered. The document's Title keeps the exact reference.
 */
export function printable(face: Face, text: string): string {
  if (PLAIN_ASCII.test(text)) return text;
  const { font } = FONTS[face];
  let out = '';
  let changed = false;
  for (const { segment } of graphemes.segment(text)) {
    let drawn = '';
    let missing = false;
    for (const ch of segment) {
      if (font.hasGlyphForCodePoint(ch.codePointAt(0)!)) drawn += ch;
      else if (INVISIBLE.test(ch)) changed = true;
      else missing = true;
    }
    if (missing) {
      out += '\uFFFD';
      changed = true;
    } else out += drawn;
  }
  return changed ? out : text;
}

/**
 * Greedy line breaking at spaces, with words wider than the line cut where they overflow.
 * Cheaper than pdfkit's Unicode line breaker, which the report's plain text does not need.
 */
export function wrap(face: Face, size: number, text: string, width: number): string[] {
  return wrapSingleSpaced(face, size, text, width) ?? wrapWords(face, size, text, width);
}

/**
 * `wrap` for text whose words are one space apart and all fit a line (nearly all): lines are
 * cut out of the text itself, with the same widths and breaks; null for any other text.
 */
function wrapSingleSpaced(face: Face, size: number, text: string, width: number): string[] | null {
  const font = FONTS[face];
  const space = textWidth(face, ' ', size);
  const lines: string[] = [];
  const n = text.length;
  let lineStart = -1;
  let lineEnd = -1;
  let lineW = 0;
  let i = 0;
  while (i < n) {
    const start = i;
    i = wordEnd(text, i);
    if (start === i || (i < n && i + 1 < n && text.charCodeAt(i + 1) === SPACE)) return null;
    const w = (font.wordAdvance(text, start, i, i - start > 1 && hasDigit(text, start, i)) / 1000) * size;
    if (w > width) return null;
    if (lineStart >= 0 && lineW + space + w <= width) {
      lineEnd = i;
      lineW += space + w;
    } else {
      if (lineStart >= 0) lines.push(text.slice(lineStart, lineEnd));
      lineStart = start;
      lineEnd = i;
      lineW = w;
    }
    i++;
  }
  if (lineStart >= 0) lines.push(text.slice(lineStart, lineEnd));
  if (lines.length === 0 || (n > 0 && text.charCodeAt(n - 1) === SPACE)) return null;
  return lines;
}

function wrapWords(face: Face, size: number, text: string, width: number): string[] {
  const space = textWidth(face, ' ', size);
  const lines: string[] = [];
  let line = '';
  let lineW = 0;
  for (const word of text.split(' ')) {
    if (word === '') continue;
    let w = textWidth(face, word, size);
    let rest = word;
    if (line !== '' && lineW + space + w <= width) {
      line += ` ${word}`;
      lineW += space + w;
      continue;
    }
    if (line !== '') lines.push(line);
    // A word longer than the line (an id, a URL): cut it into pieces that fit, between
    // characters as a reader sees them (never inside a surrogate pair, a letter with its accents
    // or an emoji sequence). Each piece is estimated from its characters' own widths, then
    // measured (kerning): measuring every shorter prefix of the word in turn, as before, took
    // seconds for a 512-character partner reference.
    if (w > width) {
      const chars = Array.from(graphemes.segment(rest), (g) => g.segment);
      const advance = chars.map((c) => textWidth(face, c, size));
      const piece = (from: number, to: number) => chars.slice(from, to).join('');
      let start = 0;
      while (chars.length - start > 1) {
        let end = start;
        let sum = 0;
        while (end < chars.length && sum + advance[end]! <= width) sum += advance[end++]!;
        end = Math.max(end, start + 1);
        // The longest piece that fits, and at least one character.
        while (end - start > 1 && textWidth(face, piece(start, end), size) > width) end--;
        while (end < chars.length && textWidth(face, piece(start, end + 1), size) <= width) end++;
        if (end === chars.length) break;
        lines.push(piece(start, end));
        start = end;
      }
      rest = piece(start, chars.length);
      w = textWidth(face, rest, size);
    }
    line = rest;
    lineW = w;
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}
