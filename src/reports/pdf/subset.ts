import { deflateSync } from 'node:zlib';
import { LRUCache } from 'lru-cache';
import { PdfObjects, pdfNumber } from './file.js';
import { type Face, type FontkitFont, type FontkitGlyph, fontOf, layout } from './fonts.js';

/**
 * The embedded fonts: each document embeds the subset of the glyphs it draws, as a CID font
 * (Identity-H, two-byte codes) with its widths and a ToUnicode map, the way pdfkit embeds a
 * TrueType font.
 *
 * Every document's subset first takes one fixed glyph set, SEED, in one order, so the code of a
 * seed glyph is the same in every document, and a report that draws nothing else (nearly all)
 * embeds exactly the same font objects: those are built and compressed once per process.
 * Glyphs beyond the seed (partner text in other scripts) get the next codes, in first-use order,
 * in that document only.
 */

/**
 * Printable ASCII, the few other characters the report's fixed text uses, and DejaVu's f-ligatures
 * (shaping turns "fi" in "confidence" into one glyph: nearly every report draws some).
 */
const SEED = `${Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('')}µ²³·–—‘’“”…≤≥×°•äöüÄÖÜéèàç ff fi fl ffi ffl`;

/** Resource names of the faces in page content (pdfkit's, kept so subset tags stay the same). */
export const FONT_IDS: Readonly<Record<Face, string>> = { regular: 'F1', bold: 'F2' };

/** Objects one embedded face takes, numbered from the first one given to `objects`. */
export const FONT_OBJECTS = 5;

/** Compression of the font program and ToUnicode map: built once per process for the seed. */
const SEED_LEVEL = 9;
/** For a document with glyphs beyond the seed, built per document (or per cached glyph list). */
const EXTRA_LEVEL = 6;
const MAX_CACHED_PROGRAMS = 32;

interface FontProgram {
  data: Buffer;
  /** Length of the uncompressed program (a TrueType font program's /Length1). */
  length: number;
}

/** The face-wide part: metrics, the seed's codes and the font dictionaries' fixed entries. */
class EmbeddableFace {
  readonly font: FontkitFont;
  readonly id: string;
  readonly name: string;
  /** Ascent in thousandths of the font size. */
  readonly ascender: number;
  readonly scale: number;
  /** Seed glyph ids by code (code 0 is .notdef). */
  readonly glyphs: readonly number[];
  /** Code of each glyph id in the seed, -1 for the others. */
  readonly codeOf: Int32Array;
  readonly widths: readonly number[];
  readonly unicode: ReadonlyArray<readonly number[]>;
  private readonly descriptor: string;
  private readonly programs = new LRUCache<string, FontProgram>({ max: MAX_CACHED_PROGRAMS });
  private seedObjects: PdfObjects | null = null;
  private seedFirst = -1;

  constructor(face: Face) {
    const font = fontOf(face);
    this.font = font;
    this.id = FONT_IDS[face];
    this.scale = 1000 / font.unitsPerEm;
    this.ascender = font.ascent * this.scale;
    // pdfkit's subset tag for its font ids (F1 → BZZZZZ); the name is a PDF name token.
    const tag = [1, 2, 3, 4, 5, 6]
      .map((i) => String.fromCharCode((this.id.charCodeAt(i) || 73) + 17))
      .join('');
    this.name = `${tag}+${font.postscriptName.replaceAll(' ', '_')}`;

    const subset = font.createSubset();
    // pdfkit's quirk, kept: .notdef's width in font units, not thousandths.
    const widths: number[] = [font.getGlyph(0).advanceWidth];
    const unicode: Array<readonly number[]> = [[0]];
    for (const g of layout(face, SEED).glyphs) {
      const code = subset.includeGlyph(g.id);
      widths[code] ??= g.advanceWidth * this.scale;
      unicode[code] ??= g.codePoints;
    }
    this.glyphs = [...subset.glyphs];
    this.widths = widths;
    this.unicode = unicode;
    this.codeOf = new Int32Array(font.numGlyphs).fill(-1);
    this.glyphs.forEach((id, code) => {
      this.codeOf[id] = code;
    });

    const familyClass = (font['OS/2']?.sFamilyClass ?? 0) >> 8;
    let flags = 1 << 2;
    if (font.post.isFixedPitch) flags |= 1 << 0;
    if (1 <= familyClass && familyClass <= 7) flags |= 1 << 1;
    if (familyClass === 10) flags |= 1 << 3;
    if (font.head.macStyle.italic) flags |= 1 << 6;
    const { bbox } = font;
    const s = this.scale;
    const box = [bbox.minX * s, bbox.minY * s, bbox.maxX * s, bbox.maxY * s].map(pdfNumber).join(' ');
    this.descriptor =
      `/Type /FontDescriptor /FontName /${this.name} /Flags ${flags} /FontBBox [${box}]` +
      ` /ItalicAngle ${pdfNumber(font.italicAngle)} /Ascent ${pdfNumber(this.ascender)}` +
      ` /Descent ${pdfNumber(font.descent * s)} /CapHeight ${pdfNumber((font.capHeight || font.ascent) * s)}` +
      ` /XHeight ${pdfNumber((font.xHeight || 0) * s)} /StemV 0`;
  }

  /** The objects of a document that drew seed glyphs only (the same for every such document). */
  seedOnly(first: number): PdfObjects {
    if (this.seedObjects === null || this.seedFirst !== first) {
      this.seedObjects = this.objects(first, this.glyphs, this.widths, this.unicode, SEED_LEVEL);
      this.seedFirst = first;
    }
    return this.seedObjects;
  }

  /** Type0 font, CID font, descriptor, font program, ToUnicode map: objects first..first+4. */
  objects(
    first: number,
    glyphs: readonly number[],
    widths: readonly number[],
    unicode: ReadonlyArray<readonly number[]>,
    level: number,
  ): PdfObjects {
    const [cid, descriptor, file, cmap] = [first + 1, first + 2, first + 3, first + 4];
    const program = this.program(glyphs, level);
    const out = new PdfObjects();
    out.object(
      first,
      `<< /Type /Font /Subtype /Type0 /BaseFont /${this.name} /Encoding /Identity-H /DescendantFonts [${cid} 0 R] /ToUnicode ${cmap} 0 R >>`,
    );
    out.object(
      cid,
      `<< /Type /Font /Subtype /CIDFontType2 /BaseFont /${this.name} /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /FontDescriptor ${descriptor} 0 R /W [0 [${widths.map(pdfNumber).join(' ')}]] /CIDToGIDMap /Identity >>`,
    );
    out.object(descriptor, `<< ${this.descriptor} /FontFile2 ${file} 0 R >>`);
    out.stream(file, `/Length1 ${program.length} /Filter /FlateDecode`, program.data);
    out.stream(cmap, '/Filter /FlateDecode', deflateSync(toUnicodeCmap(unicode), { level }));
    return out;
  }

  /** The subset font program for glyphs in code order (cached: most lists recur). */
  private program(glyphs: readonly number[], level: number): FontProgram {
    const key = glyphs.join(',');
    let program = this.programs.get(key);
    if (program === undefined) {
      const subset = this.font.createSubset();
      for (const g of glyphs) subset.includeGlyph(g);
      const bytes = subset.encode();
      program = { data: deflateSync(bytes, { level }), length: bytes.byteLength };
      this.programs.set(key, program);
    }
    return program;
  }
}

const hex4 = (n: number) => n.toString(16).padStart(4, '0');

/** pdfkit's ToUnicode CMap: code ranges of 256 with the text of each code. */
function toUnicodeCmap(unicode: ReadonlyArray<readonly number[]>): Buffer {
  const entries = unicode.map((codePoints) => {
    const units: string[] = [];
    for (let value of codePoints) {
      if (value > 0xffff) {
        value -= 0x10000;
        units.push(hex4(((value >>> 10) & 0x3ff) | 0xd800));
        value = 0xdc00 | (value & 0x3ff);
      }
      units.push(hex4(value));
    }
    return `<${units.join(' ')}>`;
  });
  const ranges: string[] = [];
  for (let start = 0; start < entries.length; start += 256) {
    const end = Math.min(start + 256, entries.length);
    ranges.push(`<${hex4(start)}> <${hex4(end - 1)}> [${entries.slice(start, end).join(' ')}]`);
  }
  return Buffer.from(
    `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo <<
  /Registry (Adobe)
  /Ordering (UCS)
  /Supplement 0
>> def
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
1 begincodespacerange
<0000><ffff>
endcodespacerange
${ranges.length} beginbfrange
${ranges.join('\n')}
endbfrange
endcmap
CMapName currentdict /CMap defineresource pop
end
end`,
    'latin1',
  );
}

let faces: Record<Face, EmbeddableFace> | null = null;

function embeddable(face: Face): EmbeddableFace {
  faces ??= { regular: new EmbeddableFace('regular'), bold: new EmbeddableFace('bold') };
  return faces[face];
}

/** One face as one document uses it: the codes of the glyphs it drew, beyond the seed's. */
export class SubsetFont {
  readonly id: string;
  /** Ascent in thousandths of the font size. */
  readonly ascender: number;
  private readonly face: EmbeddableFace;
  private extra: FontkitGlyph[] = [];
  private extraCodes = new Map<number, number>();

  constructor(face: Face) {
    this.face = embeddable(face);
    this.id = this.face.id;
    this.ascender = this.face.ascender;
  }

  /** Whether a glyph is in the seed, so its code is the same in every document. */
  isSeed(glyph: FontkitGlyph): boolean {
    return this.face.codeOf[glyph.id]! >= 0;
  }

  /** The code of a glyph id in the seed, or -1 when it is not a seed glyph. */
  seedCode(id: number): number {
    return this.face.codeOf[id]!;
  }

  /** The glyph's code, adding the glyph to this document's subset at first use. */
  code(glyph: FontkitGlyph): number {
    const seeded = this.face.codeOf[glyph.id]!;
    if (seeded >= 0) return seeded;
    let code = this.extraCodes.get(glyph.id);
    if (code === undefined) {
      code = this.face.glyphs.length + this.extra.length;
      this.extra.push(glyph);
      this.extraCodes.set(glyph.id, code);
    }
    return code;
  }

  /** The face's objects, numbered from `first` (FONT_OBJECTS of them). */
  objects(first: number): PdfObjects {
    const { face } = this;
    if (this.extra.length === 0) return face.seedOnly(first);
    return face.objects(
      first,
      [...face.glyphs, ...this.extra.map((g) => g.id)],
      [...face.widths, ...this.extra.map((g) => g.advanceWidth * face.scale)],
      [...face.unicode, ...this.extra.map((g) => g.codePoints)],
      EXTRA_LEVEL,
    );
  }
}

/** Builds the seed's font objects now rather than in the first report. */
export function prepareFonts(first: Readonly<Record<Face, number>>): void {
  embeddable('regular').seedOnly(first.regular);
  embeddable('bold').seedOnly(first.bold);
}
