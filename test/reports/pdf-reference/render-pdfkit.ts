import {
  equivalentAgeText,
  formatDate,
  formatDateTime,
  formatNumber,
  horizonShort,
  methodText,
  withUnit,
} from '../../../src/reports/format.js';
import {
  ACCENT,
  HIGH_FROM,
  IN_RANGE,
  INK,
  MUTED,
  OUT_OF_RANGE,
  RULE,
  rangeBar,
  SCORE_ZONES,
  scoreFraction,
  TIER_COLOURS,
  TRACK,
  WITHIN,
} from '../../../src/reports/geometry.js';
import type { Report, ReportMarker, ReportOutcome } from '../../../src/reports/schema.js';
import { Content } from './pdfkit-content.js';
import { type Face, newDocument, printable, textWidth, wrap } from './pdfkit-fonts.js';

/**
 * The reference for the pdf artifact: the report's layout as it was when pdfkit wrote the file
 * (src/reports/render-pdf.ts at 8706a6d^, the commit before our own writer replaced pdfkit),
 * drawn and written by pdfkit (pdfkit-content.ts, pdfkit-fonts.ts). The layout below is that
 * file's, changed only where it met the old surface (the document comes back from `newDocument`
 * alone; `Content` takes the document). It is test code: reference.test.ts compares the text
 * pdftotext extracts from its file and from ours.
 *
 * The original comment follows.
 *
 * The `pdf` artifact: A4, DejaVu Sans embedded, the same content and charts as the html page
 * drawn as vector graphics, "Page n of m" on every page. Document dates come from
 * generatedAt, so the same report always gives the same bytes.
 *
 * Text is laid out here (wrap, measure, then draw line by line) rather than by pdfkit's line
 * wrapper, so block heights are known before drawing and blocks are kept on one page; lines
 * and shapes are drawn by pdf-content.ts, which keeps rendering within a few milliseconds.
 */

type Doc = PDFKit.PDFDocument;

const PAGE_W = 595.28;
const PAGE_H = 841.89;
const LEFT = 48;
const RIGHT = PAGE_W - 48;
const TOP = 48;
const BOTTOM = PAGE_H - 62;
const WIDTH = RIGHT - LEFT;
const CONTENT_H = BOTTOM - TOP;
const WARNING_EDGE = '#b45309';
const WARNING_FILL = '#fff7e6';
const WARNING_INK = '#7c2d12';

interface Style {
  face: Face;
  size: number;
  color: string;
}

const st = (size: number, color = INK, face: Face = 'regular'): Style => ({ face, size, color });
const bold = (size: number, color = INK): Style => st(size, color, 'bold');

const lead = (s: Style) => s.size * 1.28;

/** Wrapped text, measured before it is drawn. */
interface Lines {
  lines: string[];
  style: Style;
  height: number;
}

function lines(text: string, style: Style, width: number): Lines {
  const l = wrap(style.face, style.size, text, width);
  return { lines: l, style, height: l.length * lead(style) };
}

/** A cursor over the pages: `y` is where the next block starts. */
class Writer {
  y = TOP;

  constructor(
    readonly doc: Doc,
    readonly ink: Content,
  ) {}

  /** One line of text; returns its width. */
  text(text: string, x: number, y: number, s: Style): number {
    this.ink.text(s.face, s.size, s.color, x, y, text);
    return textWidth(s.face, text, s.size);
  }

  draw(l: Lines, x: number, y: number): void {
    const step = lead(l.style);
    for (let i = 0; i < l.lines.length; i++) this.text(l.lines[i]!, x, y + i * step, l.style);
  }

  /** Starts a new page unless `h` points fit below the cursor (or could not fit anywhere). */
  fit(h: number): void {
    if (this.y + h > BOTTOM && h <= CONTENT_H && this.y > TOP) this.newPage();
  }

  newPage(): void {
    this.ink.flush();
    this.doc.addPage();
    this.y = TOP;
  }

  rule(weight: number, colour: string): void {
    this.ink.line(LEFT, this.y, RIGHT, this.y, { stroke: colour, lineWidth: weight });
  }

  para(text: string, s: Style, gap = 3): void {
    const l = lines(text, s, WIDTH);
    this.fit(l.height);
    this.draw(l, LEFT, this.y);
    this.y += l.height + gap;
  }

  heading(text: string, minFollowing: number): void {
    this.fit(36 + minFollowing);
    this.y += 12;
    this.text(text, LEFT, this.y, bold(14, ACCENT));
    this.y += 20;
    this.rule(1.5, ACCENT);
    this.y += 8;
  }
}

/** A bulleted list measured as one block. */
function bulletBlock(items: readonly string[], s: Style, width: number): { items: Lines[]; height: number } {
  const measured = items.map((i) => lines(i, s, width - 10));
  return { items: measured, height: measured.reduce((h, l) => h + l.height + 2, 0) };
}

function drawBullets(w: Writer, block: { items: Lines[] }, x: number): void {
  for (const l of block.items) {
    w.fit(l.height);
    w.ink.circle(x + 2.5, w.y + l.style.size * 0.62, 1.5, { fill: l.style.color });
    w.draw(l, x + 10, w.y);
    w.y += l.height + 2;
  }
}

function badge(w: Writer, o: ReportOutcome, right: number, y: number): void {
  const c = TIER_COLOURS[o.band.tier];
  const s = bold(7.5, c.text);
  const tw = textWidth(s.face, o.band.label, s.size);
  const x = right - tw - 12;
  w.ink.roundedRect(x, y, tw + 12, 13, 6.5, { fill: c.fill });
  w.text(o.band.label, x + 6, y + 3, s);
}

/** The score bar: the three band zones, the reference at 0.5 and the score. */
function scoreBar(w: Writer, o: ReportOutcome, x: number, y: number, width: number): void {
  const { ink } = w;
  const at = scoreFraction(o);
  if (at === null) {
    ink.roundedRect(x, y, width, 11, 2, { fill: TRACK });
    const s = st(7, MUTED);
    w.text('Not available', x + (width - textWidth(s.face, 'Not available', s.size)) / 2, y + 2, s);
  } else {
    for (const z of SCORE_ZONES) {
      ink.rect(x + z.from * width, y, (z.to - z.from) * width, 11, { fill: TIER_COLOURS[z.tier].fill });
    }
    const rx = x + HIGH_FROM * width;
    ink.line(rx, y - 4, rx, y + 15, { stroke: INK, lineWidth: 1, dash: [2, 1.5] });
    ink.circle(x + at * width, y + 5.5, 5, { fill: INK, stroke: '#ffffff', lineWidth: 1.2 });
  }
  const ly = y + 18;
  const small = st(6.5, MUTED);
  const ref = '0.5 reference';
  w.text('0', x, ly, small);
  w.text(ref, x + HIGH_FROM * width - textWidth(small.face, ref, small.size) / 2, ly, small);
  w.text('1', x + width - textWidth(small.face, '1', small.size), ly, small);
}

const CARD_H = 104;
const CARD_GAP = 10;

function summary(w: Writer, r: Report): void {
  const cardW = (WIDTH - CARD_GAP) / 2;
  r.outcomes.forEach((o, i) => {
    const col = i % 2;
    if (col === 0) w.fit(CARD_H);
    const x = LEFT + col * (cardW + CARD_GAP);
    const y = w.y;
    w.ink.roundedRect(x, y, cardW, CARD_H - CARD_GAP, 6, { stroke: RULE, lineWidth: 0.8 });
    w.text(o.focus, x + 10, y + 10, bold(10.5));
    badge(w, o, x + cardW - 10, y + 9);
    if (o.status === 'failed') w.text(o.scoreText, x + 10, y + 28, bold(12, MUTED));
    else {
      const sw = w.text(o.scoreText, x + 10, y + 25, bold(16));
      w.text('of 1', x + 14 + sw, y + 31, st(8, MUTED));
    }
    scoreBar(w, o, x + 10, y + 47, cardW - 20);
    w.text(o.placementLabel, x + 10, y + 73, st(8, MUTED));
    w.text(horizonShort(o.horizon.years), x + 10, y + 83, st(8, MUTED));
    if (col === 1 || i === r.outcomes.length - 1) w.y += CARD_H;
  });
  w.fit(12);
  const s = st(7.5, MUTED);
  let x = LEFT;
  for (const z of SCORE_ZONES) {
    w.ink.rect(x, w.y + 1, 12, 7, { fill: TIER_COLOURS[z.tier].fill });
    x += 16 + w.text(z.label, x + 16, w.y, s) + 14;
  }
  w.ink.circle(x + 4, w.y + 4.5, 3.5, { fill: INK });
  w.text('Your score', x + 11, w.y, s);
  w.y += 18;
  const guide = bulletBlock(r.readingGuide, st(8.5, MUTED), WIDTH);
  w.fit(14 + guide.height);
  w.text('How to read these scores', LEFT, w.y, bold(9.5));
  w.y += 14;
  drawBullets(w, guide, LEFT);
}

const FACT_LABEL_W = 142;
const FACT_GAP = 8;

interface OutcomeBlock {
  /** Title and facts, kept on one page. */
  headHeight: number;
  draw(w: Writer): void;
}

function outcomeBlock(o: ReportOutcome, ageYears: number): OutcomeBlock {
  const facts: Array<[string, string]> = [
    ['Score', o.status === 'failed' ? o.scoreText : `${o.scoreText} of 1 (reference 0.5)`],
    ['Band', o.band.label],
    ['Compared with the reference', o.placementLabel],
    ['Time span', o.horizon.label],
  ];
  if (o.risk.summary !== null) facts.push(['Estimated risk', o.risk.summary]);
  if (o.equivalentAge !== null)
    facts.push([o.equivalentAge.label, equivalentAgeText(o.equivalentAge, ageYears)]);
  for (const e of o.extras) {
    const v = withUnit(formatNumber(e.value), e.unit);
    facts.push([e.label, e.note === null ? v : `${v} (${e.note})`]);
  }
  const valueX = LEFT + FACT_LABEL_W + FACT_GAP;
  const rows = facts.map(([label, value]) => {
    const l = lines(label, st(9, MUTED), FACT_LABEL_W);
    const v = lines(value, st(9), RIGHT - valueX);
    return { label: l, value: v, height: Math.max(l.height, v.height) + 1.5 };
  });
  const headHeight = 34 + rows.reduce((h, r) => h + r.height, 0);
  const explanation = bulletBlock(o.explanation, st(9), WIDTH);
  const notices = bulletBlock(o.notices, st(9), WIDTH);
  const methodLines = lines(methodText(o), st(7.5, MUTED), WIDTH);

  const list = (w: Writer, title: string, block: { items: Lines[] }) => {
    // The subheading stays with the first item.
    w.fit(19 + (block.items[0]?.height ?? 0));
    w.y += 4;
    w.text(title, LEFT, w.y, bold(9.5));
    w.y += 15;
    drawBullets(w, block, LEFT);
  };

  return {
    headHeight,
    draw: (w) => {
      w.fit(headHeight);
      w.y += 6;
      w.rule(0.6, RULE);
      w.y += 8;
      const tw = w.text(o.focus, LEFT, w.y, bold(12));
      w.text(o.statusLabel, LEFT + tw + 10, w.y + 3, st(8, MUTED));
      badge(w, o, RIGHT, w.y);
      w.y += 20;
      for (const r of rows) {
        w.draw(r.label, LEFT, w.y);
        w.draw(r.value, valueX, w.y);
        w.y += r.height;
      }
      if (o.explanation.length > 0) list(w, 'What moved the score most', explanation);
      if (o.notices.length > 0) list(w, 'Notes', notices);
      w.fit(4 + methodLines.height);
      w.y += 4;
      w.draw(methodLines, LEFT, w.y);
      w.y += methodLines.height;
    },
  };
}

interface Column {
  title: string;
  x: number;
  width: number;
}

const HEAD_H = 18;

function tableHead(w: Writer, cols: readonly Column[]): void {
  for (const c of cols) w.text(c.title, c.x, w.y, bold(8, MUTED));
  w.y += 12;
  w.rule(1, RULE);
  w.y += 6;
}

interface Row {
  height: number;
  draw(y: number): void;
}

/** Rows with a rule under each; the head is repeated on every page the table reaches. */
function table(w: Writer, cols: readonly Column[], rows: readonly Row[]): void {
  w.fit(HEAD_H + (rows[0]?.height ?? 0) + 8);
  tableHead(w, cols);
  for (const row of rows) {
    if (w.y + row.height + 8 > BOTTOM) {
      w.newPage();
      tableHead(w, cols);
    }
    row.draw(w.y);
    w.y += row.height + 3;
    w.rule(0.5, RULE);
    w.y += 5;
  }
}

function tableHeight(rows: readonly Row[]): number {
  return HEAD_H + rows.reduce((h, r) => h + r.height + 8, 0);
}

const DERIVED_COLS: readonly Column[] = [
  { title: 'Item', x: LEFT, width: 160 },
  { title: 'Value', x: LEFT + 166, width: 104 },
  { title: 'Source', x: LEFT + 276, width: 64 },
  { title: 'Note', x: LEFT + 346, width: WIDTH - 346 },
];

function derivedRows(w: Writer, r: Report): Row[] {
  const [item, value, source, note] = DERIVED_COLS as [Column, Column, Column, Column];
  return r.derived.items.map((d) => {
    const label = lines(d.label, st(8.5), item.width);
    const shown = lines(d.displayValue, bold(8.5), value.width);
    const noted = d.note === null ? null : lines(d.note, st(8.5, MUTED), note.width);
    return {
      height: Math.max(label.height, shown.height, noted?.height ?? 0),
      draw: (y) => {
        w.draw(label, item.x, y);
        w.draw(shown, value.x, y);
        w.text(d.provenanceLabel, source.x, y, st(8.5));
        if (noted !== null) w.draw(noted, note.x, y);
      },
    };
  });
}

const MARKER_COLS: readonly Column[] = [
  { title: 'Marker', x: LEFT, width: 178 },
  { title: 'Your value', x: LEFT + 186, width: 72 },
  { title: 'Range', x: LEFT + 262, width: 96 },
  { title: 'Where your value sits', x: LEFT + 364, width: WIDTH - 364 },
];

function rangeChart(w: Writer, m: ReportMarker, x: number, y: number, width: number): void {
  const bar = rangeBar(m);
  if (bar === null) return;
  const { ink } = w;
  ink.roundedRect(x, y, width, 7, 3.5, { fill: TRACK });
  if (bar.band !== null) {
    ink.rect(x + bar.band.from * width, y, (bar.band.to - bar.band.from) * width, 7, { fill: IN_RANGE });
  }
  const cx = x + bar.at * width;
  const marker = { stroke: '#ffffff', lineWidth: 1 };
  if (m.position === 'below' || m.position === 'above') {
    const points = [
      [cx, y - 2.5],
      [cx + 6, y + 3.5],
      [cx, y + 9.5],
      [cx - 6, y + 3.5],
    ] as const;
    ink.polygon(points, { ...marker, fill: OUT_OF_RANGE });
  } else {
    ink.circle(cx, y + 3.5, 5, { ...marker, fill: INK });
  }
}

function positionColour(m: ReportMarker): string {
  if (m.position === 'below' || m.position === 'above') return OUT_OF_RANGE;
  return m.position === 'within' ? WITHIN : MUTED;
}

function markerRows(w: Writer, r: Report): Row[] {
  const [marker, value, range, chart] = MARKER_COLS as [Column, Column, Column, Column];
  const desc = st(7.5, MUTED);
  return r.markers.items.map((m) => {
    const nameStyle = bold(9);
    const codeStyle = st(6.5, MUTED);
    const nameW = textWidth(nameStyle.face, m.name, nameStyle.size);
    // The code sits beside the name when there is room, else on a line of its own.
    const codeInline = nameW + 6 + textWidth(codeStyle.face, m.code, codeStyle.size) <= marker.width;
    const descY = codeInline ? 13 : 22;
    const description = lines(m.description, desc, marker.width);
    const rangeText = lines(
      m.interval === null ? '—' : `${m.interval.text} ${m.unit}`,
      st(9, m.interval === null ? MUTED : INK),
      range.width,
    );
    const applies = m.interval === null ? null : lines(m.interval.appliesTo, desc, range.width);
    const hasChart = m.value !== null;
    const labelY = hasChart ? 14 : 0;
    const comment = m.comment === null ? null : lines(m.comment, desc, chart.width);
    const height = Math.max(
      descY + description.height,
      rangeText.height + (applies === null ? 0 : 2 + applies.height),
      labelY + 12 + (comment === null ? 0 : comment.height),
    );
    return {
      height,
      draw: (y) => {
        w.text(m.name, marker.x, y, nameStyle);
        if (codeInline) w.text(m.code, marker.x + nameW + 6, y + 2, codeStyle);
        else w.text(m.code, marker.x, y + 12, codeStyle);
        w.draw(description, marker.x, y + descY);
        if (m.value === null) w.text('Not measured', value.x, y, st(9, MUTED));
        else w.text(`${m.value} ${m.unit}`, value.x, y, bold(9));
        w.draw(rangeText, range.x, y);
        if (applies !== null) w.draw(applies, range.x, y + rangeText.height + 2);
        if (hasChart) rangeChart(w, m, chart.x + 6, y + 2, chart.width - 12);
        w.text(m.positionLabel, chart.x, y + labelY, bold(7.5, positionColour(m)));
        if (comment !== null) w.draw(comment, chart.x, y + labelY + 12);
      },
    };
  });
}

function masthead(w: Writer, r: Report): void {
  w.text('HEALTHSPAN', LEFT, TOP, st(7.5, MUTED));
  w.text(r.title, LEFT, TOP + 12, bold(22, ACCENT));
  const n = r.outcomes.length;
  w.text(
    `Scores for ${n} health ${n === 1 ? 'area' : 'areas'}, with your blood markers`,
    LEFT,
    TOP + 42,
    st(9, MUTED),
  );
  const partner = (text: string) => printable('bold', text);
  const meta: Array<[string, string]> = [
    ['Subject reference', partner(r.partnerSubjectId)],
    ['Submission reference', partner(r.partnerSubmissionId)],
    ['Age and sex', `${r.subject.ageYears} years, ${r.subject.sexAtBirthLabel.toLowerCase()}`],
  ];
  if (r.source.intakeCompletedAt !== null)
    meta.push(['Intake completed', formatDate(r.source.intakeCompletedAt)]);
  if (r.source.labName !== null) meta.push(['Laboratory', partner(r.source.labName)]);
  meta.push(['Report generated', formatDate(r.generatedAt)]);
  const lx = 330;
  const vx = 428;
  let y = TOP;
  for (const [label, value] of meta) {
    w.text(label, lx, y, st(8, MUTED));
    // Partner references can be long: at most two lines, cut beyond that.
    const l = lines(value, bold(8), RIGHT - vx);
    l.lines = l.lines.slice(0, 2);
    w.draw(l, vx, y);
    y += Math.max(11, l.lines.length * lead(l.style));
  }
  w.y = Math.max(TOP + 60, y) + 6;
  w.rule(0.8, RULE);
  w.y += 12;
}

function statement(w: Writer, r: Report): void {
  const body = lines(r.statement.text, st(9.5), WIDTH - 30);
  const h = 30 + body.height + 8;
  const y = w.y;
  w.ink.roundedRect(LEFT, y, WIDTH, h, 5, { fill: WARNING_FILL, stroke: WARNING_EDGE, lineWidth: 1.5 });
  w.ink.rect(LEFT, y, 7, h, { fill: WARNING_EDGE });
  w.text(r.statement.heading, LEFT + 18, y + 10, bold(11.5, WARNING_INK));
  w.draw(body, LEFT + 18, y + 29);
  w.y = y + h + 4;
}

function footers(w: Writer, r: Report): void {
  w.ink.flush();
  const { start, count } = w.doc.bufferedPageRange();
  const left = `${r.model.name} ${r.model.version} · Result ${r.resultId} · Generated ${formatDateTime(r.generatedAt)}`;
  const small = st(7, MUTED);
  const strong = bold(8);
  for (let i = start; i < start + count; i++) {
    w.doc.switchToPage(i);
    const y = PAGE_H - 44;
    w.y = y - 8;
    w.rule(0.5, RULE);
    w.text(left, LEFT, y, small);
    w.text(`${r.statement.heading}.`, LEFT, y + 10, small);
    const page = `Page ${i + 1} of ${count}`;
    w.text(page, RIGHT - textWidth(strong.face, page, strong.size), y + 4, strong);
    w.ink.flush();
  }
}

export function renderPdfWithPdfkit(report: Report): Promise<Buffer> {
  const r = report;
  const generated = new Date(r.generatedAt);
  const doc = newDocument({
    size: 'A4',
    margins: { top: TOP, bottom: PAGE_H - BOTTOM, left: LEFT, right: PAGE_W - RIGHT },
    bufferPages: true,
    lang: 'en',
    displayTitle: true,
    info: {
      Title: `${r.title}: ${r.partnerSubjectId}`,
      Author: 'healthspan',
      Subject: r.statement.heading,
      Creator: `${r.model.name} ${r.model.version}`,
      Producer: 'healthspan',
      CreationDate: generated,
      ModDate: generated,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const w = new Writer(doc, new Content(doc));
  masthead(w, r);
  statement(w, r);
  w.heading('Summary', CARD_H);
  summary(w, r);
  const blocks = r.outcomes.map((o) => outcomeBlock(o, r.subject.ageYears));
  w.heading('Your results by area', blocks[0]?.headHeight ?? 0);
  for (const b of blocks) b.draw(w);

  w.heading('What the model worked with', 60);
  w.para(r.derived.note, st(8.5, MUTED), 6);
  table(w, DERIVED_COLS, derivedRows(w, r));

  // The marker table starts on a fresh page when it would fit there but not here.
  const markers = markerRows(w, r);
  const markersHeight = 36 + 30 + tableHeight(markers);
  if (w.y + markersHeight > BOTTOM && markersHeight <= CONTENT_H) w.newPage();
  w.heading('Blood markers', 60);
  w.para(r.markers.note, st(8.5, MUTED), 6);
  table(w, MARKER_COLS, markers);

  footers(w, r);
  doc.end();
  return done;
}
