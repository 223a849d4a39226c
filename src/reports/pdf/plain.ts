/**
 * Plain text shaped character by character. For most characters DejaVu's shaping is one glyph
 * per character, and within a word each glyph's advance depends only on the character after it
 * (pair kerning). Such text is measured and encoded here from per-character and per-pair tables,
 * with no string lookups: a report's values, dates and references are new strings in every
 * report, and looking them up in caches cost more than shaping them this way.
 *
 * Each character and each pair is checked once against the shaper itself (fontkit): a character
 * is plain when it is Latin or common to all scripts (digits, punctuation) and shapes alone to one
 * glyph with no offset; a pair of plain characters is plain when it shapes to those two glyphs,
 * the second one unchanged, alone and after a Latin letter alike (the shaper applies one script's
 * rules to a whole word, so a word of punctuation and one with letters must shape a pair the same
 * way). Anything else (the f-ligatures, marks, other scripts, characters outside the BMP) is not
 * plain, and the word goes to the shaper. The results are the shaper's own numbers, added up in
 * the same order, so widths, kerning and the bytes written are the same either way
 * (test/reports/pdf/plain.test.ts).
 */

export interface PlainGlyph {
  readonly id: number;
}

export interface PlainPosition {
  /** In thousandths of the font size, as all positions here. */
  readonly xAdvance: number;
  readonly xOffset: number;
  readonly yOffset: number;
  readonly advanceWidth: number;
}

export interface PlainRun {
  readonly glyphs: readonly PlainGlyph[];
  readonly positions: readonly PlainPosition[];
}

/** Scripts whose characters may be plain: in a word of these, the shaper applies Latin rules. */
const PLAIN_SCRIPT = /^[\p{Script=Latin}\p{Script=Common}]$/u;
/** A Latin letter put before a pair to check that Latin context does not change it. */
const LATIN_CONTEXT = 'n';

const UNKNOWN = -1;
const NOT_PLAIN = -2;
/** Plain characters a face keeps tables for; others are shaped by fontkit. */
const MAX_PLAIN = 256;

/** Distinct pair advances a face keeps (few: a glyph's width plus one of a few kerning values). */
const MAX_ADVANCES = 4096;
/** `pairSlot` of a pair that is not plain. */
export const NOT_PLAIN_PAIR = 1;

export class PlainShaping {
  private readonly index = new Int16Array(0x10000).fill(UNKNOWN);
  /** By plain index: the glyph, its own advance, and its advance alone (no kerning). */
  readonly glyphs: PlainGlyph[] = [];
  readonly widths = new Float64Array(MAX_PLAIN);
  readonly alone = new Float64Array(MAX_PLAIN);
  /**
   * Per pair of plain indexes: 0 not checked yet, NOT_PLAIN_PAIR, else the index in `advances` of
   * the first glyph's advance when followed by the second in a word. Typed arrays, read where
   * they are used: the numbers stay unboxed.
   */
  private readonly pairs = new Uint16Array(MAX_PLAIN * MAX_PLAIN);
  readonly advances = new Float64Array(MAX_ADVANCES).fill(Number.NaN);
  private advanceCount = 2;
  private readonly advanceSlots = new Map<number, number>();

  /** `shape` lays out a string with the shaper (fontkit), positions in thousandths. */
  constructor(private readonly shape: (text: string) => PlainRun) {}

  /** The plain index of a UTF-16 code unit, or a negative number when it is not plain. */
  charIndex(code: number): number {
    const known = this.index[code]!;
    return known !== UNKNOWN ? known : this.checkChar(code);
  }

  private checkChar(code: number): number {
    let index = NOT_PLAIN;
    const surrogate = code >= 0xd800 && code <= 0xdfff;
    const char = String.fromCharCode(code);
    if (!surrogate && this.glyphs.length < MAX_PLAIN && PLAIN_SCRIPT.test(char)) {
      const run = this.shape(char);
      const p = run.positions[0];
      if (run.glyphs.length === 1 && p !== undefined && p.xOffset === 0 && p.yOffset === 0) {
        index = this.glyphs.length;
        this.glyphs.push(run.glyphs[0]!);
        this.widths[index] = p.advanceWidth;
        this.alone[index] = p.xAdvance;
      }
    }
    this.index[code] = index;
    return index;
  }

  /**
   * Where the advance of `a` followed by `b` in one word (plain indexes of the code units `codeA`
   * and `codeB`) is in `advances`, or NOT_PLAIN_PAIR.
   */
  pairSlot(a: number, b: number, codeA: number, codeB: number): number {
    const slot = this.pairs[a * MAX_PLAIN + b]!;
    return slot !== 0 ? slot : this.checkPair(a, b, codeA, codeB);
  }

  private checkPair(a: number, b: number, codeA: number, codeB: number): number {
    const at = a * MAX_PLAIN + b;
    const pair = String.fromCharCode(codeA, codeB);
    const run = this.shape(pair);
    const [first, second] = run.positions;
    const inContext = this.shape(LATIN_CONTEXT + pair);
    const plain =
      run.glyphs.length === 2 &&
      run.glyphs[0]!.id === this.glyphs[a]!.id &&
      run.glyphs[1]!.id === this.glyphs[b]!.id &&
      first !== undefined &&
      second !== undefined &&
      first.xOffset === 0 &&
      first.yOffset === 0 &&
      second.xOffset === 0 &&
      second.yOffset === 0 &&
      second.xAdvance === this.alone[b] &&
      inContext.glyphs.length === 3 &&
      inContext.glyphs[1]!.id === run.glyphs[0]!.id &&
      inContext.glyphs[2]!.id === run.glyphs[1]!.id &&
      samePosition(inContext.positions[1], first) &&
      samePosition(inContext.positions[2], second);
    let slot = NOT_PLAIN_PAIR;
    if (plain) {
      slot = this.advanceSlots.get(first.xAdvance) ?? this.advanceCount;
      if (slot === this.advanceCount) {
        if (slot >= MAX_ADVANCES) slot = NOT_PLAIN_PAIR;
        else {
          this.advances[slot] = first.xAdvance;
          this.advanceSlots.set(first.xAdvance, slot);
          this.advanceCount++;
        }
      }
    }
    this.pairs[at] = slot;
    return slot;
  }

  /**
   * The advance of one word, `text` from `start` to `end` (with the spaces after it), in
   * thousandths of the font size, or NaN when it is not plain. `apart`: each character shaped
   * alone (words with digits). Summed as the shaper's run of the word is.
   */
  wordAdvance(text: string, start: number, end: number, apart: boolean): number {
    let word = 0;
    let b = this.charIndex(text.charCodeAt(start));
    if (b < 0) return Number.NaN;
    for (let j = start; j < end; j++) {
      const a = b;
      if (j + 1 < end) {
        b = this.charIndex(text.charCodeAt(j + 1));
        if (b < 0) return Number.NaN;
      }
      if (apart || j + 1 === end) word += this.alone[a]!;
      else {
        const slot = this.pairSlot(a, b, text.charCodeAt(j), text.charCodeAt(j + 1));
        if (slot === NOT_PLAIN_PAIR) return Number.NaN;
        word += this.advances[slot]!;
      }
    }
    return word;
  }
}

function samePosition(p: PlainPosition | undefined, q: PlainPosition): boolean {
  return (
    p !== undefined &&
    p.xAdvance === q.xAdvance &&
    p.xOffset === q.xOffset &&
    p.yOffset === q.yOffset &&
    p.advanceWidth === q.advanceWidth
  );
}
