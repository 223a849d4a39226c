import { ByteSink, returnSink, takeSink } from './bytes.js';
import { type Face, layout } from './fonts.js';
import type { SubsetFont } from './subset.js';
import { type TextLine, writeOperand } from './text.js';

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

/** pdfkit's numbers in content: at most six decimals. */
function num6(n: number): string {
  return String(Math.round(n * 1e6) / 1e6);
}

const latin1 = (s: string) => Buffer.from(s, 'latin1');

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

/** The fill and stroke colour operators of each colour. */
const fillOps = new Map<string, Buffer>();
const strokeOps = new Map<string, Buffer>();

function colourOp(ops: Map<string, Buffer>, hex: string, op: string): Buffer {
  let bytes = ops.get(hex);
  if (bytes === undefined) {
    bytes = latin1(`${rgb(hex)} ${op}\n`);
    ops.set(hex, bytes);
  }
  return bytes;
}

/** `#rrggbb` as pdfkit writes a fill colour: each channel / 255 in full. */
function rgbFull(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `${((n >> 16) & 255) / 255} ${((n >> 8) & 255) / 255} ${(n & 255) / 255}`;
}

const NL = 0x0a;

/** Where a line's operand is written before it is copied to the page (drawing is synchronous). */
const scratch = new ByteSink(1024);
const SP = 0x20;

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
  private readonly pages: ByteSink[] = [];
  private out!: ByteSink;
  private open = false;
  private inText = false;
  /** Graphics state set in the segment being written, so unchanged state is not repeated. */
  private fill = '';
  private stroke = '';
  private lineWidth = -1;
  private dashed = false;
  private face: Face | '' = '';
  private size = -1;

  constructor(
    private readonly fonts: Readonly<Record<Face, SubsetFont>>,
    private readonly height: number,
  ) {}

  get pageCount(): number {
    return this.pages.length;
  }

  newPage(): void {
    this.close();
    this.out = takeSink();
    this.pages.push(this.out);
  }

  /** Goes back to a page to draw more on it (after what it holds). */
  toPage(index: number): void {
    this.close();
    this.out = this.pages[index]!;
  }

  /**
   * Passes each page's content stream to `use`, then gives the buffers back to the pool:
   * `use` must not keep the bytes.
   */
  finish(use: (content: Buffer, page: number) => void): void {
    this.close();
    this.pages.forEach((sink, i) => {
      use(sink.view(NL), i);
    });
    for (const sink of this.pages) returnSink(sink);
    this.pages.length = 0;
  }

  private op(text: string): void {
    this.out.text(text);
    this.out.byte(NL);
  }

  private begin(): void {
    if (this.open) return;
    this.op('q');
    this.open = true;
  }

  /** Ends the segment: the next one starts from the page's graphics state. */
  private close(): void {
    if (this.inText) this.op('ET');
    if (this.open) this.op('Q');
    this.open = false;
    this.inText = false;
    this.fill = '';
    this.stroke = '';
    this.lineWidth = -1;
    this.dashed = false;
    this.face = '';
    this.size = -1;
  }

  // Text

  /** One line of text; `memo` keeps its encoding for the next document that draws it. */
  text(face: Face, size: number, colour: string, x: number, y: number, text: string, memo?: TextLine): void {
    if (text === '') return;
    const font = this.fonts[face];
    const tj = memo?.operand;
    if (tj === undefined) {
      scratch.length = 0;
      const shared = writeOperand(font, face, text, scratch);
      if (shared === null) {
        this.close();
        this.placed(face, size, colour, x, y, text);
        return;
      }
      if (memo !== undefined && shared) memo.operand = Buffer.from(scratch.buf.subarray(0, scratch.length));
    }
    this.begin();
    const { out } = this;
    if (!this.inText) {
      this.op('BT');
      this.inText = true;
    }
    this.setFill(colour);
    if (face !== this.face || size !== this.size) {
      out.byte(0x2f);
      out.text(font.id);
      out.byte(SP);
      out.num(size);
      out.text(' Tf\n');
      this.face = face;
      this.size = size;
    }
    out.text('1 0 0 1 ');
    out.num(x);
    out.byte(SP);
    out.num(this.height - y - (font.ascender / 1000) * size);
    out.text(' Tm [');
    if (tj === undefined) out.append(scratch);
    else out.bytes(tj);
    out.text('] TJ\n');
  }

  /**
   * A line with marks placed over their letters, glyph by glyph, in the operators pdfkit writes
   * for it (its `text()`), outside any segment.
   */
  private placed(face: Face, size: number, colour: string, x: number, y: number, line: string): void {
    const font = this.fonts[face];
    const ops: string[] = ['/DeviceRGB cs', `${rgbFull(colour)} scn`];
    const text = line.replace(/\n/g, '');
    if (text !== '') {
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
    for (const op of ops) this.op(op);
  }

  // Shapes

  private point(x: number, y: number): void {
    const { out } = this;
    out.num(x);
    out.byte(SP);
    out.num(y);
    out.byte(SP);
  }

  private curve(x1: number, y1: number, x2: number, y2: number, x3: number, y3: number): void {
    this.point(x1, y1);
    this.point(x2, y2);
    this.point(x3, y3);
    this.out.byte(0x63);
  }

  rect(x: number, y: number, w: number, h: number, style: PathStyle): void {
    this.style(style);
    this.point(x, this.height - y - h);
    this.point(w, h);
    this.out.text('re');
    this.paint(style);
  }

  roundedRect(x: number, y: number, w: number, h: number, radius: number, style: PathStyle): void {
    const r = Math.min(radius, w / 2, h / 2);
    const c = r * (1 - KAPPA);
    const x0 = x;
    const x1 = x + w;
    const top = this.height - y;
    const bottom = top - h;
    const { out } = this;
    this.style(style);
    this.point(x0 + r, top);
    out.text('m\n');
    this.point(x1 - r, top);
    out.text('l\n');
    this.curve(x1 - c, top, x1, top - c, x1, top - r);
    out.byte(NL);
    this.point(x1, bottom + r);
    out.text('l\n');
    this.curve(x1, bottom + c, x1 - c, bottom, x1 - r, bottom);
    out.byte(NL);
    this.point(x0 + r, bottom);
    out.text('l\n');
    this.curve(x0 + c, bottom, x0, bottom + c, x0, bottom + r);
    out.byte(NL);
    this.point(x0, top - r);
    out.text('l\n');
    this.curve(x0, top - c, x0 + c, top, x0 + r, top);
    out.text(' h');
    this.paint(style);
  }

  circle(cx: number, cy: number, r: number, style: PathStyle): void {
    const k = r * KAPPA;
    const y = this.height - cy;
    const { out } = this;
    this.style(style);
    this.point(cx + r, y);
    out.text('m\n');
    this.curve(cx + r, y + k, cx + k, y + r, cx, y + r);
    out.byte(NL);
    this.curve(cx - k, y + r, cx - r, y + k, cx - r, y);
    out.byte(NL);
    this.curve(cx - r, y - k, cx - k, y - r, cx, y - r);
    out.byte(NL);
    this.curve(cx + k, y - r, cx + r, y - k, cx + r, y);
    out.text(' h');
    this.paint(style);
  }

  polygon(points: ReadonlyArray<readonly [number, number]>, style: PathStyle): void {
    const H = this.height;
    this.style(style);
    points.forEach(([x, y], i) => {
      if (i > 0) this.out.byte(NL);
      this.point(x, H - y);
      this.out.byte(i === 0 ? 0x6d : 0x6c);
    });
    this.out.text(' h');
    this.paint(style);
  }

  line(x1: number, y1: number, x2: number, y2: number, style: PathStyle): void {
    const H = this.height;
    this.style(style);
    this.point(x1, H - y1);
    this.out.text('m ');
    this.point(x2, H - y2);
    this.out.byte(0x6c);
    this.paint(style);
  }

  /** Sets the path's colours, width and dash, ahead of its geometry. */
  private style(style: PathStyle): void {
    this.begin();
    if (this.inText) {
      this.op('ET');
      this.inText = false;
    }
    if (style.fill !== undefined) this.setFill(style.fill);
    if (style.stroke !== undefined) {
      const { out } = this;
      if (style.stroke !== this.stroke) {
        out.bytes(colourOp(strokeOps, style.stroke, 'RG'));
        this.stroke = style.stroke;
      }
      const width = style.lineWidth ?? 1;
      if (width !== this.lineWidth) {
        out.num(width);
        out.text(' w\n');
        this.lineWidth = width;
      }
      const dashed = style.dash !== undefined;
      if (dashed) {
        out.byte(0x5b);
        out.num(style.dash![0]);
        out.byte(SP);
        out.num(style.dash![1]);
        out.text('] 0 d\n');
      } else if (this.dashed) this.op('[] 0 d');
      this.dashed = dashed;
    }
  }

  private paint(style: PathStyle): void {
    const paint = style.fill !== undefined ? (style.stroke !== undefined ? ' B\n' : ' f\n') : ' S\n';
    this.out.text(paint);
  }

  private setFill(colour: string): void {
    if (colour !== this.fill) {
      this.out.bytes(colourOp(fillOps, colour, 'rg'));
      this.fill = colour;
    }
  }
}
