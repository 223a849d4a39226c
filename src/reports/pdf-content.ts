import { type Face, layout, TOKENS } from './pdf-fonts.js';
import type { SubsetFont } from './pdf-subset.js';

/**
 * The pdf renderer's drawing surface: single-line text and simple vector shapes, written as
 * PDF content operators, page by page. Each page's operators become its content stream.
 *
 * Coordinates are the renderer's: origin at the top left, y down; for text, `y` is the top of the
 * line box. They are written in PDF space (y up) with at most two decimals.
 *
 * Drawing is written in segments, each inside `q … Q` with its own graphics state (fill and
 * stroke colour, line width, dash, font), so state never leaks from one segment into another: a
 * page's body is one segment and its footer another, and a line that needs per-glyph placement
 * (marks over letters) is written between segments, the way pdfkit writes it.
 */

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

/** pdfkit's numbers in content: at most six decimals. */
function num6(n: number): string {
  return String(Math.round(n * 1e6) / 1e6);
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

/** `#rrggbb` as pdfkit writes a fill colour: each channel / 255 in full. */
function rgbFull(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `${((n >> 16) & 255) / 255} ${((n >> 8) & 255) / 255} ${(n & 255) / 255}`;
}

/**
 * The TJ operand (without brackets) of each line and word, per face, for those whose glyphs all
 * come from the seed (so whose codes are the same in every document): most of a report's lines
 * repeat across reports, and a new line is mostly made of words seen before.
 */
const MAX_CACHED = 20_000;
const shown: Record<Face, Map<string, string>> = { regular: new Map(), bold: new Map() };

function remember(cache: Map<string, string>, text: string, tj: string): void {
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(text, tj);
}

/**
 * Two TJ operands as one. Each is a sequence of `(glyphs)` and kerning numbers starting with a
 * string; when the first ends with a string, the two strings become one.
 */
function joinTj(a: string, b: string): string {
  return a.charCodeAt(a.length - 1) === 0x29 ? `${a.slice(0, -1)}${b.slice(1)}` : `${a} ${b}`;
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

export class Content {
  private readonly pages: string[][] = [];
  private ops: string[] = [];
  private open = false;
  private inText = false;
  /** Graphics state set in the segment being written, so unchanged state is not repeated. */
  private fill = '';
  private stroke = '';
  private lineWidth = -1;
  private dashed = false;
  private font = '';

  constructor(
    private readonly fonts: Readonly<Record<Face, SubsetFont>>,
    private readonly height: number,
  ) {}

  get pageCount(): number {
    return this.pages.length;
  }

  newPage(): void {
    this.close();
    this.ops = [];
    this.pages.push(this.ops);
  }

  /** Goes back to a page to draw more on it (after what it holds). */
  toPage(index: number): void {
    this.close();
    this.ops = this.pages[index]!;
  }

  /** Each page's content stream. */
  finish(): string[] {
    this.close();
    return this.pages.map((ops) => ops.join('\n'));
  }

  private begin(): void {
    if (this.open) return;
    this.ops.push('q');
    this.open = true;
  }

  /** Ends the segment: the next one starts from the page's graphics state. */
  private close(): void {
    if (this.inText) this.ops.push('ET');
    if (this.open) this.ops.push('Q');
    this.open = false;
    this.inText = false;
    this.fill = '';
    this.stroke = '';
    this.lineWidth = -1;
    this.dashed = false;
    this.font = '';
  }

  // Text

  text(face: Face, size: number, colour: string, x: number, y: number, text: string): void {
    if (text === '') return;
    const font = this.fonts[face];
    const tj = this.encode(face, text);
    if (tj === null) {
      this.close();
      this.placed(face, size, colour, x, y, text);
      return;
    }
    this.begin();
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
    const baseline = this.height - y - (font.ascender / 1000) * size;
    this.ops.push(`1 0 0 1 ${num(x)} ${num(baseline)} Tm [${tj}] TJ`);
  }

  /** The line's glyphs as a TJ operand, or null when glyphs need placing one by one. */
  private encode(face: Face, text: string): string | null {
    const cache = shown[face];
    const cached = cache.get(text);
    if (cached !== undefined) return cached;
    const tokens = text.match(TOKENS);
    if (tokens === null || tokens.length < 2) return this.encodeRun(face, text);
    let tj = '';
    let seedOnly = true;
    for (const token of tokens) {
      let part = cache.get(token);
      if (part === undefined) {
        const encoded = this.encodeRun(face, token);
        if (encoded === null) return null;
        part = encoded;
        // encodeRun caches what the seed alone draws.
        if (!cache.has(token)) seedOnly = false;
      }
      tj = tj === '' ? part : joinTj(tj, part);
    }
    if (seedOnly) remember(cache, text, tj);
    return tj;
  }

  private encodeRun(face: Face, text: string): string | null {
    const { glyphs, positions } = layout(face, text);
    const font = this.fonts[face];
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
        tj += `(${run}) ${num(-kern)} `;
        run = '';
      }
    }
    tj = run === '' ? tj.slice(0, -1) : `${tj}(${run})`;
    if (tj === '') tj = '()';
    if (seedOnly) remember(shown[face], text, tj);
    return tj;
  }

  /**
   * A line with marks placed over their letters, glyph by glyph, in the operators pdfkit writes
   * for it (its `text()`), outside any segment.
   */
  private placed(face: Face, size: number, colour: string, x: number, y: number, line: string): void {
    const font = this.fonts[face];
    const { ops } = this;
    ops.push('/DeviceRGB cs', `${rgbFull(colour)} scn`);
    const text = line.replace(/\n/g, '');
    if (text === '') return;
    const { glyphs, positions } = layout(face, text);
    const codes = glyphs.map((g) => font.code(g).toString(16).padStart(4, '0'));
    let cx = x;
    const cy = this.height - y - (font.ascender / 1000) * size;
    ops.push('q', 'BT', `1 0 0 1 ${num6(cx)} ${num6(cy)} Tm`, `/${font.id} ${num6(size)} Tf`);
    const scale = size / 1000;
    const commands: string[] = [];
    let last = 0;
    let hadOffset = false;
    const addSegment = (cur: number) => {
      if (last < cur) {
        const p = positions[cur - 1]!;
        commands.push(`<${codes.slice(last, cur).join('')}> ${num6(-(p.xAdvance - p.advanceWidth))}`);
      }
      last = cur;
    };
    const flush = (i: number) => {
      addSegment(i);
      if (commands.length > 0) {
        ops.push(`[${commands.join(' ')}] TJ`);
        commands.length = 0;
      }
    };
    let i = 0;
    for (; i < positions.length; i++) {
      const p = positions[i]!;
      if (p.xOffset || p.yOffset) {
        flush(i);
        ops.push(`1 0 0 1 ${num6(cx + p.xOffset * scale)} ${num6(cy + p.yOffset * scale)} Tm`);
        flush(i + 1);
        hadOffset = true;
      } else {
        if (hadOffset) {
          ops.push(`1 0 0 1 ${num6(cx)} ${num6(cy)} Tm`);
          hadOffset = false;
        }
        if (p.xAdvance - p.advanceWidth !== 0) addSegment(i + 1);
      }
      cx += p.xAdvance * scale;
    }
    flush(i);
    ops.push('ET', 'Q');
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
    this.begin();
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
}
