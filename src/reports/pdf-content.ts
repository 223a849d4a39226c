import { deflateSync } from 'node:zlib';
import { type EmbeddedFont, FACE_NAMES, type Face, TOKENS } from './pdf-fonts.js';

/**
 * The pdf renderer's drawing surface: single-line text and simple vector shapes, written as
 * PDF content operators through pdfkit's public `addContent`. Glyphs are encoded by the
 * document's own embedded fonts, so font subsets, widths and the ToUnicode map stay pdfkit's.
 *
 * Why not pdfkit's `text()` and path API: each call costs tens of microseconds (option
 * merging, three layouts of the string, several content writes, colours written with 16
 * decimals), and a report has some 300 lines and 200 shapes; the pdf budget is a few
 * milliseconds (bench/reports.mjs). Operators are collected per page and written in one
 * block by `flush`, which the renderer calls before it changes page and before `end`.
 *
 * A page's block goes into a form XObject compressed here at zlib level 1, drawn by a one-line
 * page content; the document itself is created with pdfkit's compression off. pdfkit
 * compresses every stream at the default level in a call of its own, which took longer than
 * all the drawing; one level-1 call per page costs a fraction and the file stays small.
 *
 * Coordinates are pdfkit's: origin at the top left, y down; for text, `y` is the top of the
 * line box (pdfkit's default `baseline: 'top'`).
 */

const NO_FEATURES: unknown[] = [];

/** A coordinate or size with at most two decimals (1/7200 inch), built from integers. */
function num(n: number): string {
  const hundredths = Math.round(n * 100);
  const abs = hundredths < 0 ? -hundredths : hundredths;
  const frac = abs % 100;
  const whole = `${hundredths < 0 ? '-' : ''}${(abs - frac) / 100}`;
  if (frac === 0) return whole;
  if (frac % 10 === 0) return `${whole}.${frac / 10}`;
  return `${whole}.${frac < 10 ? '0' : ''}${frac}`;
}

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

const rgbCache = new Map<string, string>();

/** `#rrggbb` as three decimals 0..1. */
function rgb(hex: string): string {
  let v = rgbCache.get(hex);
  if (v === undefined) {
    const n = Number.parseInt(hex.slice(1), 16);
    const channel = (c: number) => String(Math.round((c / 255) * 1000) / 1000);
    v = `${channel((n >> 16) & 255)} ${channel((n >> 8) & 255)} ${channel(n & 255)}`;
    rgbCache.set(hex, v);
  }
  return v;
}

/**
 * The TJ operand of each line and word, per face, for those whose glyphs all come from the
 * seed (so whose codes are the same in every document): most of a report's lines repeat
 * across reports, and a new line is mostly made of words seen before.
 */
const MAX_CACHED = 20_000;
const shown: Record<Face, Map<string, string>> = { regular: new Map(), bold: new Map() };

function remember(cache: Map<string, string>, text: string, tj: string): void {
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(text, tj);
}

export interface PathStyle {
  fill?: string;
  stroke?: string;
  lineWidth?: number;
  /** Dash and gap length. */
  dash?: readonly [number, number];
}

/** Bézier control distance for a quarter circle. */
const KAPPA = 0.5522847498;

/** Blocks smaller than this (footers) are written straight into the page content. */
const SMALL_BLOCK = 2048;

export class Content {
  private ops: string[] = [];
  private inText = false;
  private readonly used = new Set<Face>();
  /** Graphics state set in the block being collected, so unchanged state is not repeated. */
  private fill = '';
  private stroke = '';
  private lineWidth = -1;
  private dashed = false;
  private font = '';
  private forms = 0;

  constructor(
    private readonly doc: PDFKit.PDFDocument,
    private readonly fonts: Readonly<Record<Face, EmbeddedFont>>,
    private readonly seeded: Readonly<Record<Face, number>>,
  ) {}

  private get height(): number {
    return this.doc.page.height;
  }

  // Text

  text(face: Face, size: number, colour: string, x: number, y: number, text: string): void {
    if (text === '') return;
    const font = this.fonts[face];
    const tj = this.encode(face, text);
    if (tj === null) {
      // Mark positioning (combining accents) needs per-glyph moves: pdfkit places this line.
      this.flush();
      this.doc.font(FACE_NAMES[face]).fontSize(size).fillColor(colour);
      this.doc.text(text, x, y, { lineBreak: false, features: [] });
      return;
    }
    if (!this.inText) {
      this.ops.push('BT');
      this.inText = true;
    }
    this.setFill(colour);
    const fontOp = `/${font.id} ${num(size)} Tf`;
    if (fontOp !== this.font) {
      this.ops.push(fontOp);
      this.font = fontOp;
    }
    this.used.add(face);
    const baseline = this.height - y - (font.ascender / 1000) * size;
    this.ops.push(`1 0 0 1 ${num(x)} ${num(baseline)} Tm [${tj}] TJ`);
  }

  /** The line's glyphs as a TJ operand, or null when pdfkit has to place them itself. */
  private encode(face: Face, text: string): string | null {
    const cache = shown[face];
    const cached = cache.get(text);
    if (cached !== undefined) return cached;
    const tokens = text.match(TOKENS);
    if (tokens === null || tokens.length < 2) return this.encodeWord(face, text);
    let tj = '';
    for (const token of tokens) {
      const part = this.encodeWord(face, token);
      if (part === null) return null;
      tj += part;
    }
    // Every word came from the seed only if each was cached.
    if (tokens.every((t) => cache.has(t))) remember(cache, text, tj);
    return tj;
  }

  private encodeWord(face: Face, text: string): string | null {
    const cache = shown[face];
    const cached = cache.get(text);
    if (cached !== undefined) return cached;
    const [hex, positions] = this.fonts[face].encode(text, NO_FEATURES);
    let tj = '';
    let run = '';
    let seededOnly = true;
    for (let i = 0; i < hex.length; i++) {
      const p = positions[i]!;
      if (p.xOffset !== 0 || p.yOffset !== 0) return null;
      const code = Number.parseInt(hex[i]!, 16);
      if (code > this.seeded[face]) seededOnly = false;
      run += BYTE[code >> 8]! + BYTE[code & 255]!;
      const kern = p.xAdvance - p.advanceWidth;
      if (kern !== 0) {
        tj += `(${run}) ${num(-kern)} `;
        run = '';
      }
    }
    if (run !== '') tj += `(${run}) `;
    if (seededOnly) remember(cache, text, tj);
    return tj;
  }

  // Shapes

  rect(x: number, y: number, w: number, h: number, style: PathStyle): void {
    this.path(`${num(x)} ${num(this.height - y - h)} ${num(w)} ${num(h)} re`, style);
  }

  roundedRect(x: number, y: number, w: number, h: number, radius: number, style: PathStyle): void {
    const r = Math.min(radius, w / 2, h / 2);
    const c = r * (1 - KAPPA);
    const H = this.height;
    const [x0, x1, top, bottom] = [x, x + w, H - y, H - y - h];
    this.path(
      [
        `${num(x0 + r)} ${num(top)} m`,
        `${num(x1 - r)} ${num(top)} l`,
        `${num(x1 - c)} ${num(top)} ${num(x1)} ${num(top - c)} ${num(x1)} ${num(top - r)} c`,
        `${num(x1)} ${num(bottom + r)} l`,
        `${num(x1)} ${num(bottom + c)} ${num(x1 - c)} ${num(bottom)} ${num(x1 - r)} ${num(bottom)} c`,
        `${num(x0 + r)} ${num(bottom)} l`,
        `${num(x0 + c)} ${num(bottom)} ${num(x0)} ${num(bottom + c)} ${num(x0)} ${num(bottom + r)} c`,
        `${num(x0)} ${num(top - r)} l`,
        `${num(x0)} ${num(top - c)} ${num(x0 + c)} ${num(top)} ${num(x0 + r)} ${num(top)} c h`,
      ].join('\n'),
      style,
    );
  }

  circle(cx: number, cy: number, r: number, style: PathStyle): void {
    const k = r * KAPPA;
    const y = this.height - cy;
    this.path(
      [
        `${num(cx + r)} ${num(y)} m`,
        `${num(cx + r)} ${num(y + k)} ${num(cx + k)} ${num(y + r)} ${num(cx)} ${num(y + r)} c`,
        `${num(cx - k)} ${num(y + r)} ${num(cx - r)} ${num(y + k)} ${num(cx - r)} ${num(y)} c`,
        `${num(cx - r)} ${num(y - k)} ${num(cx - k)} ${num(y - r)} ${num(cx)} ${num(y - r)} c`,
        `${num(cx + k)} ${num(y - r)} ${num(cx + r)} ${num(y - k)} ${num(cx + r)} ${num(y)} c h`,
      ].join('\n'),
      style,
    );
  }

  polygon(points: ReadonlyArray<readonly [number, number]>, style: PathStyle): void {
    const H = this.height;
    const ops = points.map(([x, y], i) => `${num(x)} ${num(H - y)} ${i === 0 ? 'm' : 'l'}`);
    this.path(`${ops.join('\n')} h`, style);
  }

  line(x1: number, y1: number, x2: number, y2: number, style: PathStyle): void {
    const H = this.height;
    this.path(`${num(x1)} ${num(H - y1)} m ${num(x2)} ${num(H - y2)} l`, style);
  }

  private path(geometry: string, style: PathStyle): void {
    if (this.inText) {
      this.ops.push('ET');
      this.inText = false;
    }
    if (style.fill !== undefined) this.setFill(style.fill);
    if (style.stroke !== undefined) {
      const op = `${rgb(style.stroke)} RG`;
      if (op !== this.stroke) {
        this.ops.push(op);
        this.stroke = op;
      }
      const width = style.lineWidth ?? 1;
      if (width !== this.lineWidth) {
        this.ops.push(`${num(width)} w`);
        this.lineWidth = width;
      }
      const dashed = style.dash !== undefined;
      if (dashed) this.ops.push(`[${num(style.dash![0])} ${num(style.dash![1])}] 0 d`);
      else if (this.dashed) this.ops.push('[] 0 d');
      this.dashed = dashed;
    }
    const paint = style.fill !== undefined ? (style.stroke !== undefined ? 'B' : 'f') : 'S';
    this.ops.push(`${geometry} ${paint}`);
  }

  private setFill(colour: string): void {
    const op = `${rgb(colour)} rg`;
    if (op !== this.fill) {
      this.ops.push(op);
      this.fill = op;
    }
  }

  /** Writes what was collected to the current page. */
  flush(): void {
    if (this.ops.length === 0) return;
    if (this.inText) this.ops.push('ET');
    const fonts: Record<string, unknown> = {};
    for (const face of this.used) {
      const font = this.fonts[face];
      fonts[font.id] = font.ref();
    }
    const body = this.ops.join('\n');
    const { page } = this.doc;
    // pdfkit's page space is flipped (y down); the block is drawn in the unflipped PDF space.
    const unflip = `q 1 0 0 -1 0 ${num(page.height)} cm`;
    if (body.length < SMALL_BLOCK) {
      Object.assign(page.fonts as Record<string, unknown>, fonts);
      this.doc.addContent(`${unflip}\n${body}\nQ`);
    } else {
      const form = this.doc.ref({
        Type: 'XObject',
        Subtype: 'Form',
        BBox: [0, 0, page.width, page.height],
        Resources: { Font: fonts },
        Filter: 'FlateDecode',
      });
      form.end(deflateSync(Buffer.from(body, 'latin1'), { level: 1, memLevel: 9 }));
      const name = `Hs${++this.forms}`;
      (page.xobjects as Record<string, unknown>)[name] = form;
      this.doc.addContent(`${unflip} /${name} Do Q`);
    }
    this.ops = [];
    this.used.clear();
    this.inText = false;
    this.fill = '';
    this.stroke = '';
    this.lineWidth = -1;
    this.dashed = false;
    this.font = '';
  }
}
