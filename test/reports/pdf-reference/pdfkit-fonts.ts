import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import PDFDocument from 'pdfkit';

/**
 * The reference renderer's fonts: the DejaVu faces registered with pdfkit, and the measures its
 * layout takes (`textWidth`, `wrap`, `printable`), all from pdfkit and fontkit, nothing from our
 * engine. `wrap` and `printable` are the renderer's own rules (greedy breaking at spaces, U+FFFD
 * for what DejaVu cannot draw), as they were in src/reports/pdf-fonts.ts when pdfkit wrote the
 * report (commit 8706a6d^); only the caches that made it fast are gone.
 */

const require = createRequire(import.meta.url);

const FILES = {
  regular: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf'),
  bold: require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf'),
} as const;

/** pdfkit's names for the two faces: the regular one is the document's default font. */
export const REGULAR = 'DejaVuSans';
export const BOLD = 'DejaVuSans-Bold';

export type Face = 'regular' | 'bold';

export const FACE_NAMES: Readonly<Record<Face, string>> = { regular: REGULAR, bold: BOLD };

/** A new document with both faces registered. */
export function newDocument(options: PDFKit.PDFDocumentOptions): PDFKit.PDFDocument {
  const doc = new PDFDocument({ ...options, font: FILES.regular });
  doc.registerFont(BOLD, FILES.bold);
  return doc;
}

/** A document that is never written, for pdfkit's own measure of text. */
const measuring = newDocument({ autoFirstPage: false });

/** The advance width of `text` at font size `size`, in points, as pdfkit measures it. */
export function textWidth(face: Face, text: string, size: number): number {
  return measuring.font(FACE_NAMES[face]).fontSize(size).widthOfString(text);
}

/** fontkit (pdfkit's own font engine) ships no types: the one call used here. */
const fontkit = require('fontkit') as {
  create(bytes: Uint8Array): { hasGlyphForCodePoint(codePoint: number): boolean };
};

const GLYPHS = {
  regular: fontkit.create(readFileSync(FILES.regular)),
  bold: fontkit.create(readFileSync(FILES.bold)),
} as const;

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
  const font = GLYPHS[face];
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
    // measured (kerning).
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
