import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * pdfkit and the DejaVu fonts, loaded once per process, with the per-process caches that keep
 * the pdf renderer within its budget (6 ms median per report, measured by bench/reports.mjs).
 *
 * - pdfkit is loaded through `require`, so that it and the fontkit the fonts are parsed with
 *   are one module instance (pdfkit's own dependency, resolved from pdfkit's location). pdfkit
 *   accepts a parsed fontkit font wherever it accepts font bytes: each face is parsed once per
 *   process instead of once per document.
 * - `layout`: the shaped glyph run of each word and line, which depends on the font alone
 *   (`Position` explains how pdfkit is kept from rescaling cached runs). A new line is put
 *   together from its words; words with digits from their characters.
 * - the subset font program: pdfkit embeds a subset of the glyphs a document used, in
 *   first-use order. Every document first takes one fixed glyph set (SEED), so nearly all
 *   reports embed exactly the same subset, and its encoded bytes are reused.
 * - `textWidth` and `wrap`: measured widths and wrapped lines, for the renderer's own layout.
 */

const require = createRequire(import.meta.url);

const PDFDocument = require('pdfkit') as typeof import('pdfkit');

interface GlyphPosition {
  xAdvance: number;
  yAdvance: number;
  xOffset: number;
  yOffset: number;
}

interface GlyphRunLike {
  glyphs: unknown[];
  positions: GlyphPosition[];
  readonly advanceWidth: number;
}

interface FontkitSubset {
  glyphs: number[];
  encode(): Uint8Array;
}

interface FontkitFont {
  readonly unitsPerEm: number;
  hasGlyphForCodePoint(codePoint: number): boolean;
  layout(text: string, features?: unknown): GlyphRunLike;
  createSubset(): FontkitSubset;
}

const fontkit = createRequire(require.resolve('pdfkit'))('fontkit') as {
  create(bytes: Uint8Array): FontkitFont;
};

/**
 * A glyph position already in pdfkit's units (thousandths of the font size). Its fields are
 * private, read through getters: pdfkit rescales a fresh run by iterating a position's
 * enumerable keys (`for…in`), which then finds none, so one cached position can serve every
 * document without being copied. The `advanceWidth` pdfkit writes back equals the one held.
 */
class Position {
  readonly #xAdvance: number;
  readonly #yAdvance: number;
  readonly #xOffset: number;
  readonly #yOffset: number;
  #advanceWidth: number;

  constructor(p: GlyphPosition, advanceWidth: number, scale: number) {
    this.#xAdvance = p.xAdvance * scale;
    this.#yAdvance = p.yAdvance * scale;
    this.#xOffset = p.xOffset * scale;
    this.#yOffset = p.yOffset * scale;
    this.#advanceWidth = advanceWidth * scale;
  }

  get xAdvance(): number {
    return this.#xAdvance;
  }
  get yAdvance(): number {
    return this.#yAdvance;
  }
  get xOffset(): number {
    return this.#xOffset;
  }
  get yOffset(): number {
    return this.#yOffset;
  }
  get advanceWidth(): number {
    return this.#advanceWidth;
  }
  set advanceWidth(value: number) {
    this.#advanceWidth = value;
  }
}

interface CachedRun extends GlyphRunLike {
  glyphs: Array<{ advanceWidth: number }>;
  positions: Position[];
  advanceWidth: number;
}

const MAX_CACHED_WORDS = 20_000;
const MAX_CACHED_SUBSETS = 32;

/** Words with the spaces that follow them, as pdfkit itself shapes text ("a b" → "a ", "b"). */
export const TOKENS = /[^ ]+ *| +/g;

/**
 * Words with digits (values, dates, references) are new in most reports: they are put together
 * from their characters, already shaped. DejaVu's digits are tabular and unkerned.
 */
const HAS_DIGIT = /[0-9]/;

function cachingFont(font: FontkitFont): FontkitFont {
  const runs = new Map<string, CachedRun>();
  const subsets = new Map<string, Uint8Array>();
  const scale = 1000 / font.unitsPerEm;

  const remember = (text: string, run: CachedRun): CachedRun => {
    if (runs.size >= MAX_CACHED_WORDS) runs.clear();
    runs.set(text, run);
    return run;
  };

  const join = (text: string, parts: readonly string[]): CachedRun => {
    const run: CachedRun = { glyphs: [], positions: [], advanceWidth: 0 };
    for (const token of parts) {
      const part = shape(token);
      run.glyphs.push(...part.glyphs);
      run.positions.push(...part.positions);
      run.advanceWidth += part.advanceWidth;
    }
    return remember(text, run);
  };

  const shape = (text: string): CachedRun => {
    const cached = runs.get(text);
    if (cached !== undefined) return cached;
    if (text.length > 1 && HAS_DIGIT.test(text)) return join(text, [...text]);
    const shaped = font.layout(text);
    const glyphs = shaped.glyphs as Array<{ advanceWidth: number }>;
    const positions = shaped.positions.map((p, i) => new Position(p, glyphs[i]!.advanceWidth, scale));
    let advanceWidth = 0;
    for (const p of positions) advanceWidth += p.xAdvance;
    return remember(text, { glyphs, positions, advanceWidth });
  };

  // A new line is put together from its words, most of which have been shaped before.
  const layout = (text: string, features?: unknown): GlyphRunLike => {
    if (features !== undefined && !(Array.isArray(features) && features.length === 0)) {
      return font.layout(text, features);
    }
    const cached = runs.get(text);
    if (cached !== undefined) return cached;
    const tokens = text.match(TOKENS);
    return tokens === null || tokens.length < 2 ? shape(text) : join(text, tokens);
  };

  const createSubset = (): FontkitSubset => {
    const subset = font.createSubset();
    const encode = subset.encode.bind(subset);
    subset.encode = () => {
      // The subset's bytes depend only on the font and the glyph list (in order).
      const key = subset.glyphs.join(',');
      let bytes = subsets.get(key);
      if (bytes === undefined) {
        bytes = encode();
        if (subsets.size >= MAX_CACHED_SUBSETS) subsets.delete(subsets.keys().next().value!);
        subsets.set(key, bytes);
      }
      return bytes;
    };
    return subset;
  };

  // Everything else (metrics, tables, glyph lookups) is read through the prototype.
  const facade = Object.create(font) as FontkitFont;
  Object.defineProperty(facade, 'layout', { value: layout });
  Object.defineProperty(facade, 'createSubset', { value: createSubset });
  return facade;
}

function loadFont(file: string): FontkitFont {
  return cachingFont(fontkit.create(readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${file}`))));
}

const FONTS = {
  regular: loadFont('DejaVuSans.ttf'),
  bold: loadFont('DejaVuSans-Bold.ttf'),
} as const;

/** pdfkit's names for the two faces: the regular one is the document's default font. */
export const REGULAR = 'DejaVuSans';
export const BOLD = 'DejaVuSans-Bold';

export type Face = 'regular' | 'bold';

export const FACE_NAMES: Readonly<Record<Face, string>> = { regular: REGULAR, bold: BOLD };

const widths: Record<Face, Map<string, number>> = { regular: new Map(), bold: new Map() };

/** The advance width of `text` at font size `size`, in points (cached per string). */
export function textWidth(face: Face, text: string, size: number): number {
  const cache = widths[face];
  let em = cache.get(text);
  if (em === undefined) {
    em = FONTS[face].layout(text, []).advanceWidth / 1000;
    if (cache.size >= MAX_CACHED_WORDS) cache.clear();
    cache.set(text, em);
  }
  return em * size;
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
  const font = FONTS[face];
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

const wrapped = new Map<string, string[]>();

/**
 * Greedy line breaking at spaces, with words wider than the line cut where they overflow.
 * Cheaper than pdfkit's Unicode line breaker, which the report's plain text does not need.
 */
export function wrap(face: Face, size: number, text: string, width: number): string[] {
  const key = `${face} ${size} ${width} ${text}`;
  let lines = wrapped.get(key);
  if (lines === undefined) {
    lines = wrapNew(face, size, text, width);
    if (wrapped.size >= MAX_CACHED_WORDS) wrapped.clear();
    wrapped.set(key, lines);
  }
  return lines;
}

function wrapNew(face: Face, size: number, text: string, width: number): string[] {
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

/**
 * The characters every document's fonts take first, in this order: printable ASCII and the
 * few other characters the report's fixed text uses, so the subset (and its cached bytes) is
 * the same for almost every report.
 */
const SEED = `${Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('')}µ²³·–—‘’“”…≤≥×°•äöüÄÖÜéèàç`;

/** The parts of pdfkit's per-document font object (EmbeddedFont) that pdf-content.ts uses. */
export interface EmbeddedFont {
  readonly id: string;
  /** Ascent in thousandths of the font size. */
  readonly ascender: number;
  /** Adds the glyphs of `text` to the font's subset; their hex codes and positions. */
  encode(text: string, features?: unknown[]): [string[], EncodedPosition[]];
  /** The font's resource reference, to list in a page's resources. */
  ref(): unknown;
}

export interface EncodedPosition {
  xAdvance: number;
  advanceWidth: number;
  xOffset: number;
  yOffset: number;
}

export interface NewDocument {
  doc: PDFKit.PDFDocument;
  fonts: Record<Face, EmbeddedFont>;
  /**
   * The highest glyph code the seed takes in each font. Codes up to it are the same in every
   * document, so text using only those encodes to the same bytes everywhere.
   */
  seeded: Record<Face, number>;
}

function highestCode(hex: readonly string[]): number {
  let max = 0;
  for (const h of hex) max = Math.max(max, Number.parseInt(h, 16));
  return max;
}

/** A new document with both faces registered and seeded (see above). */
export function newDocument(options: PDFKit.PDFDocumentOptions): NewDocument {
  // The default font is passed parsed; pdfkit's option type only names the string form.
  const doc = new PDFDocument({ ...options, font: FONTS.regular as unknown as string });
  doc.registerFont(BOLD, FONTS.bold as unknown as string);
  // pdfkit has no public handle on a document's font objects, nor a call that adds glyphs to
  // a font without drawing them: both are read from its current-font field.
  const current = () => (doc as unknown as { _font: EmbeddedFont })._font;
  doc.font(BOLD);
  const bold = current();
  const [boldSeed] = bold.encode(SEED, []);
  doc.font(REGULAR);
  const regular = current();
  const [regularSeed] = regular.encode(SEED, []);
  return {
    doc,
    fonts: { regular, bold },
    seeded: { regular: highestCode(regularSeed), bold: highestCode(boldSeed) },
  };
}
