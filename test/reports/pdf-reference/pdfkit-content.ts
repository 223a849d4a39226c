import { FACE_NAMES, type Face } from './pdfkit-fonts.js';

/**
 * The reference renderer's drawing surface, with the interface render-pdfkit.ts draws through,
 * done by pdfkit's public calls: `text()` for each line (pdfkit shapes it with fontkit, encodes
 * it in its own font subset and writes its own ToUnicode map), its path calls for the shapes.
 *
 * When pdfkit wrote the report this surface was hand-written operators fed into pdfkit's
 * document (src/reports/pdf-content.ts at 8706a6d^), for speed; a reference has no budget, so it
 * is the library's own API, which that code stood in for.
 *
 * Coordinates are pdfkit's: origin at the top left, y down; for text, `y` is the top of the
 * line box (pdfkit's default `baseline: 'top'`).
 */

export interface PathStyle {
  fill?: string;
  stroke?: string;
  lineWidth?: number;
  /** Dash and gap length. */
  dash?: readonly [number, number];
}

export class Content {
  constructor(private readonly doc: PDFKit.PDFDocument) {}

  /** Nothing is held back (every call goes to pdfkit as it is made); kept for the layout's calls. */
  flush(): void {}

  text(face: Face, size: number, colour: string, x: number, y: number, text: string): void {
    if (text === '') return;
    this.doc.font(FACE_NAMES[face]).fontSize(size).fillColor(colour);
    this.doc.text(text, x, y, { lineBreak: false });
  }

  rect(x: number, y: number, w: number, h: number, style: PathStyle): void {
    this.path(style, () => this.doc.rect(x, y, w, h));
  }

  roundedRect(x: number, y: number, w: number, h: number, radius: number, style: PathStyle): void {
    this.path(style, () => this.doc.roundedRect(x, y, w, h, radius));
  }

  circle(cx: number, cy: number, r: number, style: PathStyle): void {
    this.path(style, () => this.doc.circle(cx, cy, r));
  }

  polygon(points: ReadonlyArray<readonly [number, number]>, style: PathStyle): void {
    this.path(style, () => this.doc.polygon(...points.map(([x, y]): [number, number] => [x, y])));
  }

  line(x1: number, y1: number, x2: number, y2: number, style: PathStyle): void {
    this.path(style, () => this.doc.moveTo(x1, y1).lineTo(x2, y2));
  }

  /** One shape in its own graphics state, filled and/or stroked. */
  private path(style: PathStyle, geometry: () => void): void {
    const { doc } = this;
    doc.save();
    if (style.fill !== undefined) doc.fillColor(style.fill);
    if (style.stroke !== undefined) {
      doc.strokeColor(style.stroke).lineWidth(style.lineWidth ?? 1);
      if (style.dash !== undefined) doc.dash(style.dash[0], { space: style.dash[1] });
    }
    geometry();
    if (style.fill !== undefined && style.stroke !== undefined) doc.fillAndStroke();
    else if (style.fill !== undefined) doc.fill();
    else doc.stroke();
    doc.restore();
  }
}
