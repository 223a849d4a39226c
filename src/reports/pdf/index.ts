import { prepareDocuments } from './document.js';
import { textWidth } from './fonts.js';

/**
 * The PDF engine's one entry: everything outside `reports/pdf/` imports from here and nowhere
 * else in this folder (biome.json refuses a deep import; README.md here says what the engine
 * guarantees and how to check a change).
 *
 * - `PdfDocument`: pages of one size drawn through its `content` (`Content`: lines of text and
 *   simple shapes), then `end()` gives the file's bytes.
 * - `textWidth`, `wrap`, `printable`: the measures a layout needs, from the same shaping the
 *   document draws with, so text measured here is the text drawn.
 * - `TextLine`: a line that keeps its encoded operand for the next document that draws it.
 */

export type { Content, PathStyle } from './content.js';
export { type DocumentInfo, PdfDocument } from './document.js';
export { type Face, printable, textWidth, wrap } from './fonts.js';
export { TextLine } from './text.js';

/**
 * Loads and parses the fonts, shapes a first word in each face and builds the embedded font
 * objects every document shares, so that none of it falls on the first report a process renders.
 */
export function preparePdf(): void {
  textWidth('regular', 'warm-up', 10);
  textWidth('bold', 'warm-up', 10);
  prepareDocuments();
}
