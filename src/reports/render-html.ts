import {
  equivalentAgeText,
  formatDate,
  formatDateTime,
  formatNumber,
  horizonShort,
  methodText,
  withUnit,
} from './format.js';
import {
  ACCENT,
  HIGH_FROM,
  IN_RANGE,
  INK,
  MUTED,
  OUT_OF_RANGE,
  RULE,
  rangeBar,
  rangeChartLabel,
  SCORE_ZONES,
  scoreChartLabel,
  scoreFraction,
  TIER_COLOURS,
  TRACK,
  WITHIN,
} from './geometry.js';
import type { Report, ReportDerivedItem, ReportMarker, ReportOutcome } from './schema.js';

/**
 * The `html` artifact: one self-contained page (inline CSS and SVG, no scripts, no external
 * requests), responsive, print-friendly, with text alternatives for every chart. Every string
 * from the report passes through `esc`.
 */

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
const NEEDS_ESCAPE = /[&<>"']/;
const ESCAPE_ALL = /[&<>"']/g;

export function esc(s: string): string {
  return NEEDS_ESCAPE.test(s) ? s.replace(ESCAPE_ALL, (c) => ESCAPES[c]!) : s;
}

/** SVG coordinates: 2 decimals are plenty and keep the page small. */
function n(x: number): string {
  return String(Math.round(x * 100) / 100);
}

const CSS = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#eef1f5;color:${INK};font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif}
.page{max-width:60rem;margin:0 auto;background:#fff;padding:2rem 2.25rem 2.5rem}
h1,h2,h3,h4{line-height:1.25;margin:0}
h1{font-size:1.75rem;color:${ACCENT}}
h2{font-size:1.3rem;margin:2rem 0 .75rem;padding-bottom:.35rem;border-bottom:2px solid ${ACCENT};color:${ACCENT}}
h3{font-size:1.1rem}
h4{font-size:.95rem;margin:.9rem 0 .3rem}
p{margin:.4rem 0}
ul{margin:.3rem 0;padding-left:1.2rem}
li{margin:.2rem 0}
.masthead{display:flex;flex-wrap:wrap;gap:1rem 2rem;justify-content:space-between;align-items:flex-start;border-bottom:1px solid ${RULE};padding-bottom:1rem}
.brand{margin:0 0 .2rem;font-size:.8rem;letter-spacing:.08em;text-transform:uppercase;color:${MUTED}}
.meta{display:grid;grid-template-columns:auto auto;gap:.15rem 1rem;margin:0;font-size:.85rem}
.meta dt{color:${MUTED}}
.meta dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.statement{margin:1.25rem 0 0;border:2px solid #b45309;border-left-width:8px;background:#fff7e6;border-radius:6px;padding:.9rem 1.1rem}
.statement h2{margin:0 0 .3rem;border:0;padding:0;font-size:1.1rem;color:#7c2d12}
.guide{font-size:.9rem;color:${MUTED}}
.guide-h{font-size:.95rem;margin:1rem 0 .2rem}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(19rem,1fr));gap:.9rem}
.card{border:1px solid ${RULE};border-radius:8px;padding:.85rem .95rem .6rem}
.card-top{display:flex;justify-content:space-between;align-items:baseline;gap:.5rem}
.score{font-size:1.6rem;font-weight:700;margin:.25rem 0 0}
.score.na{font-size:1.1rem;color:${MUTED}}
.score small{font-size:.8rem;font-weight:400;color:${MUTED}}
.badge{display:inline-block;border-radius:999px;padding:.05rem .6rem;font-size:.8rem;font-weight:600;white-space:nowrap}
.placement{font-size:.85rem;color:${MUTED};margin:0}
svg{display:block;width:100%;height:auto}
.legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;font-size:.8rem;color:${MUTED};margin:.6rem 0 0;padding:0;list-style:none}
.legend li{display:flex;align-items:center;gap:.35rem;margin:0}
.swatch{display:inline-block;width:.9rem;height:.6rem;border-radius:2px}
.outcome{border-top:1px solid ${RULE};padding:1rem 0 .4rem}
.outcome:first-of-type{border-top:0;padding-top:0}
.outcome-head{display:flex;flex-wrap:wrap;gap:.4rem .8rem;align-items:baseline}
.facts{display:grid;grid-template-columns:minmax(9rem,max-content) 1fr;gap:.2rem 1rem;margin:.6rem 0;font-size:.92rem}
.facts dt{color:${MUTED}}
.facts dd{margin:0}
.notices{background:#f3f6fa;border-radius:6px;padding:.5rem .9rem .5rem 1.9rem;font-size:.9rem}
.method{font-size:.8rem;color:${MUTED}}
table{width:100%;border-collapse:collapse;font-size:.9rem}
caption{text-align:left;font-size:.85rem;color:${MUTED};padding-bottom:.4rem}
th{text-align:left;font-size:.8rem;color:${MUTED};font-weight:600;border-bottom:2px solid ${RULE};padding:.35rem .5rem}
td{border-bottom:1px solid ${RULE};padding:.5rem;vertical-align:top}
td.num{white-space:nowrap;font-weight:600}
td.val{font-weight:600;overflow-wrap:anywhere}
.code{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:.78rem;color:${MUTED}}
.desc{font-size:.82rem;color:${MUTED};margin:.15rem 0 0}
.pos{font-size:.82rem;font-weight:600}
.pos-below,.pos-above{color:${OUT_OF_RANGE}}
.pos-within{color:${WITHIN}}
.chart-cell{width:13rem}
.footer{margin-top:2rem;border-top:1px solid ${RULE};padding-top:.8rem;font-size:.78rem;color:${MUTED}}
.footer p{margin:.2rem 0;overflow-wrap:anywhere}
@media (max-width:640px){
.page{padding:1.1rem}
h1{font-size:1.45rem}
.markers thead{display:none}
.markers tr{display:block;border-bottom:1px solid ${RULE};padding:.5rem 0}
.markers td{display:block;border:0;padding:.15rem 0}
.markers td[data-label]::before{content:attr(data-label) ": ";color:${MUTED};font-weight:400}
.chart-cell{width:auto;max-width:18rem}
.derived thead{display:none}
.derived tr{display:block;border-bottom:1px solid ${RULE};padding:.4rem 0}
.derived td{display:block;border:0;padding:.1rem 0}
.derived td[data-label]::before{content:attr(data-label) ": ";color:${MUTED};font-weight:400}
.derived td:empty{display:none}
.derived td:first-child{font-weight:600}
}
@media print{
@page{size:A4;margin:14mm}
body{background:#fff;font-size:10.5pt}
.page{max-width:none;padding:0}
.card,tr,.statement,.facts,li{break-inside:avoid}
.outcome-head{break-after:avoid}
h2,h3,h4{break-after:avoid}
*{-webkit-print-color-adjust:exact;print-color-adjust:exact}
}
`
  .replace(/\n/g, '')
  .trim();

function badge(o: ReportOutcome): string {
  const c = TIER_COLOURS[o.band.tier];
  return `<span class="badge" style="background:${c.fill};color:${c.text}">${esc(o.band.label)}</span>`;
}

function scoreGauge(o: ReportOutcome, id: string): string {
  const label = esc(scoreChartLabel(o));
  const W = 240;
  const x0 = 6;
  const w = W - 12;
  const at = scoreFraction(o);
  const parts = [
    `<svg viewBox="0 0 ${W} 40" role="img" aria-labelledby="${id}"><title id="${id}">${label}</title>`,
  ];
  if (at === null) {
    parts.push(
      `<rect x="${x0}" y="10" width="${w}" height="12" rx="3" fill="${TRACK}"/>`,
      `<text x="${W / 2}" y="19.5" font-size="9" text-anchor="middle" fill="${MUTED}">Not available</text>`,
    );
  } else {
    for (const z of SCORE_ZONES) {
      parts.push(
        `<rect x="${n(x0 + z.from * w)}" y="10" width="${n((z.to - z.from) * w)}" height="12" fill="${TIER_COLOURS[z.tier].fill}"/>`,
      );
    }
    const rx = n(x0 + HIGH_FROM * w);
    const sx = n(x0 + at * w);
    parts.push(
      `<line x1="${rx}" x2="${rx}" y1="5" y2="27" stroke="${INK}" stroke-width="1.2" stroke-dasharray="2 1.5"/>`,
      `<circle cx="${sx}" cy="16" r="5.5" fill="${INK}" stroke="#fff" stroke-width="1.5"/>`,
    );
  }
  parts.push(
    `<text x="${x0}" y="37" font-size="8" fill="${MUTED}">0</text>`,
    `<text x="${n(x0 + HIGH_FROM * w)}" y="37" font-size="8" text-anchor="middle" fill="${MUTED}">0.5 reference</text>`,
    `<text x="${x0 + w}" y="37" font-size="8" text-anchor="end" fill="${MUTED}">1</text>`,
    '</svg>',
  );
  return parts.join('');
}

function card(o: ReportOutcome, index: number): string {
  const id = `score-chart-${index + 1}`;
  const score =
    o.status === 'failed'
      ? `<p class="score na"><span class="score-value">${esc(o.scoreText)}</span></p>`
      : `<p class="score"><span class="score-value">${esc(o.scoreText)}</span> <small>of 1</small></p>`;
  return `<div class="card"><div class="card-top"><h3>${esc(o.focus)}</h3>${badge(o)}</div>${score}${scoreGauge(o, id)}<p class="placement">${esc(o.placementLabel)}</p><p class="placement horizon">${esc(horizonShort(o.horizon.years))}</p></div>`;
}

function list(items: readonly string[], cls = ''): string {
  if (items.length === 0) return '';
  const attr = cls === '' ? '' : ` class="${cls}"`;
  return `<ul${attr}>${items.map((s) => `<li>${esc(s)}</li>`).join('')}</ul>`;
}

function fact(term: string, value: string): string {
  return `<dt>${esc(term)}</dt><dd>${esc(value)}</dd>`;
}

function outcomeDetail(o: ReportOutcome, ageYears: number): string {
  const facts = [
    fact('Score', o.status === 'failed' ? o.scoreText : `${o.scoreText} of 1 (reference 0.5)`),
    fact('Band', o.band.label),
    fact('Compared with the reference', o.placementLabel),
    fact('Time span', o.horizon.label),
  ];
  if (o.risk.summary !== null) facts.push(fact('Estimated risk', o.risk.summary));
  if (o.equivalentAge !== null)
    facts.push(fact(o.equivalentAge.label, equivalentAgeText(o.equivalentAge, ageYears)));
  for (const e of o.extras) {
    const v = withUnit(formatNumber(e.value), e.unit);
    facts.push(fact(e.label, e.note === null ? v : `${v} (${e.note})`));
  }
  const parts = [
    `<article class="outcome"><div class="outcome-head"><h3>${esc(o.focus)}</h3>${badge(o)}<span class="placement">${esc(o.statusLabel)}</span></div>`,
    `<dl class="facts">${facts.join('')}</dl>`,
  ];
  if (o.explanation.length > 0) parts.push('<h4>What moved the score most</h4>', list(o.explanation));
  if (o.notices.length > 0) parts.push('<h4>Notes</h4>', list(o.notices, 'notices'));
  parts.push(`<p class="method">${esc(methodText(o))}</p></article>`);
  return parts.join('');
}

function derivedRow(d: ReportDerivedItem): string {
  const note = d.note === null ? '<td></td>' : `<td data-label="Note">${esc(d.note)}</td>`;
  return `<tr><td>${esc(d.label)}</td><td class="val" data-label="Value">${esc(d.displayValue)}</td><td data-label="Source">${esc(d.provenanceLabel)}</td>${note}</tr>`;
}

function rangeSvg(m: ReportMarker, id: string): string {
  const bar = rangeBar(m);
  if (bar === null) return '';
  const W = 160;
  const x0 = 4;
  const w = W - 8;
  const parts = [
    `<svg viewBox="0 0 ${W} 26" role="img" aria-labelledby="${id}"><title id="${id}">${esc(rangeChartLabel(m))}</title>`,
    `<rect x="${x0}" y="9" width="${w}" height="8" rx="4" fill="${TRACK}"/>`,
  ];
  if (bar.band !== null) {
    parts.push(
      `<rect x="${n(x0 + bar.band.from * w)}" y="9" width="${n((bar.band.to - bar.band.from) * w)}" height="8" fill="${IN_RANGE}"/>`,
    );
  }
  const out = m.position === 'below' || m.position === 'above';
  const cx = n(x0 + bar.at * w);
  parts.push(
    out
      ? `<rect x="${n(x0 + bar.at * w - 5.5)}" y="7.5" width="11" height="11" transform="rotate(45 ${cx} 13)" fill="${OUT_OF_RANGE}" stroke="#fff" stroke-width="1.5"/>`
      : `<circle cx="${cx}" cy="13" r="6" fill="${INK}" stroke="#fff" stroke-width="1.5"/>`,
    '</svg>',
  );
  return parts.join('');
}

function markerRow(m: ReportMarker): string {
  const id = `range-chart-${m.code}`;
  const value = m.value === null ? 'Not measured' : `${m.value} ${m.unit}`;
  const range = m.interval === null ? '—' : `${m.interval.text} ${m.unit}`;
  const rangeNote = m.interval === null ? '' : `<p class="desc">${esc(m.interval.appliesTo)}</p>`;
  const comment = m.comment === null ? '' : `<p class="desc">${esc(m.comment)}</p>`;
  return (
    `<tr><td><strong>${esc(m.name)}</strong> <span class="code">${esc(m.code)}</span><p class="desc">${esc(m.description)}</p></td>` +
    `<td class="num" data-label="Your value">${esc(value)}</td>` +
    `<td data-label="Range">${esc(range)}${rangeNote}</td>` +
    `<td class="chart-cell">${rangeSvg(m, id)}<span class="pos pos-${m.position}">${esc(m.positionLabel)}</span>${comment}</td></tr>`
  );
}

function legend(): string {
  const items = SCORE_ZONES.map(
    (z) =>
      `<li><span class="swatch" style="background:${TIER_COLOURS[z.tier].fill}"></span>${esc(z.label)}</li>`,
  );
  items.push(
    `<li><svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true" style="width:14px"><circle cx="7" cy="7" r="5" fill="${INK}"/></svg>Your score</li>`,
  );
  return `<ul class="legend">${items.join('')}</ul>`;
}

export function renderHtmlString(report: Report): string {
  const r = report;
  const meta = [
    fact('Subject reference', r.partnerSubjectId),
    fact('Submission reference', r.partnerSubmissionId),
    fact('Age and sex', `${r.subject.ageYears} years, ${r.subject.sexAtBirthLabel.toLowerCase()}`),
  ];
  if (r.source.intakeCompletedAt !== null)
    meta.push(fact('Intake completed', formatDate(r.source.intakeCompletedAt)));
  if (r.source.labName !== null) meta.push(fact('Laboratory', r.source.labName));
  meta.push(fact('Report generated', formatDate(r.generatedAt)));

  const body = [
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<meta name="color-scheme" content="light"><title>${esc(r.title)}: ${esc(r.partnerSubjectId)}</title><style>${CSS}</style></head>`,
    `<body><main class="page"><header class="masthead"><div><p class="brand">healthspan</p><h1>${esc(r.title)}</h1>`,
    `<p class="placement">Scores for ${r.outcomes.length} health ${r.outcomes.length === 1 ? 'area' : 'areas'}, with your blood markers</p></div>`,
    `<dl class="meta">${meta.join('')}</dl></header>`,
    `<section class="statement" aria-labelledby="statement"><h2 id="statement">${esc(r.statement.heading)}</h2><p>${esc(r.statement.text)}</p></section>`,
    `<section aria-labelledby="summary"><h2 id="summary">Summary</h2><div class="cards">${r.outcomes.map((o, i) => card(o, i)).join('')}</div>${legend()}`,
    `<h3 class="guide-h">How to read these scores</h3>${list(r.readingGuide, 'guide')}</section>`,
    `<section aria-labelledby="details"><h2 id="details">Your results by area</h2>${r.outcomes.map((o) => outcomeDetail(o, r.subject.ageYears)).join('')}</section>`,
    `<section aria-labelledby="derived"><h2 id="derived">What the model worked with</h2><p class="guide">${esc(r.derived.note)}</p>`,
    `<table class="derived"><thead><tr><th scope="col">Item</th><th scope="col">Value</th><th scope="col">Source</th><th scope="col">Note</th></tr></thead><tbody>`,
    r.derived.items.map(derivedRow).join(''),
    '</tbody></table></section>',
    `<section aria-labelledby="markers"><h2 id="markers">Blood markers</h2><p class="guide">${esc(r.markers.note)}</p>`,
    `<table class="markers"><thead><tr><th scope="col">Marker</th><th scope="col">Your value</th><th scope="col">Range</th><th scope="col">Where your value sits</th></tr></thead><tbody>`,
    r.markers.items.map(markerRow).join(''),
    '</tbody></table></section>',
    `<footer class="footer"><p><strong>${esc(r.statement.heading)}.</strong> ${esc(r.model.name)} ${esc(r.model.version)}.</p>`,
    `<p>Result ${esc(r.resultId)} · Submission ${esc(r.submissionId)} · Generated ${esc(formatDateTime(r.generatedAt))}</p></footer>`,
    '</main></body></html>\n',
  ];
  return body.join('');
}

/** The html artifact as UTF-8 bytes. */
export function renderHtml(report: Report): Buffer {
  return Buffer.from(renderHtmlString(report), 'utf8');
}
