// Report renderer benchmark: N varied reports per renderer, median and p95 in milliseconds, and
// the mean CPU time per report (process CPU, so GC and compiler threads count too).
//
//   npx tsc -p tsconfig.build.json && node bench/reports.mjs [N]
//
// Each report comes from a real pipeline input: the example submission with a seeded random
// age, sex, body size and marker values, normalised and scored by the model. The renderers
// are warmed on other reports first, as they are in a long-running worker. Targets per report
// (median): json ≤ 0.3 ms, html ≤ 1 ms, pdf ≤ 1.2 ms (p95 ≤ 2.5 ms), the three together
// ≤ 1.6 ms: a submission's whole CPU budget is about 4.5 ms. Timings on a shared machine are
// noisy: compare builds by running this on each, back to back, several times.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { prng } from './lib/prng.mjs';

const root = path.resolve(import.meta.dirname, '..');
const dist = (p) => import(path.join(root, 'dist', p));

const { checkPanel, MARKERS, parseSubmission } = await dist('domain/submission/index.js');
const { scoreSubmission } = await dist('domain/model/index.js');
const { buildReport, renderHtml, renderJson, renderPdf } = await dist('reports/index.js');

const N = Number(process.argv[2] ?? 300);
const WARMUP = 40;
const TARGETS = { build: null, json: 0.3, html: 1, pdf: 1.2 };

const example = JSON.parse(readFileSync(path.join(root, 'examples/submission.json'), 'utf8'));

function variant(rand, i) {
  const body = structuredClone(example);
  const between = (lo, hi, digits) => Number((lo + rand() * (hi - lo)).toFixed(digits));
  body.partnerSubmissionId = `bench-${i}`;
  body.partnerSubjectId = `subj-${(i * 7919).toString(36)}`;
  body.subject.demographics.ageYears = Math.round(between(45, 79, 0));
  body.subject.demographics.sexAtBirth = rand() < 0.5 ? 'female' : 'male';
  body.subject.measurements = { weightKg: between(50, 110, 1), heightCm: between(150, 195, 0) };
  for (const m of body.markers) {
    // Within ±40% of the example value, kept inside the marker's accepted range.
    const digits = String(m.value).split('.')[1]?.length ?? 0;
    const { lower, upper } = MARKERS[m.code].defaultRange;
    m.value = Math.min(upper, Math.max(lower, Number((m.value * between(0.6, 1.4, 3)).toFixed(digits))));
  }
  const parsed = parseSubmission(body, { now: new Date('2026-12-01T00:00:00Z') });
  if (!parsed.ok) throw new Error(`variant ${i} does not parse: ${JSON.stringify(parsed.error)}`);
  const panel = checkPanel(parsed.value);
  if (!panel.ok) throw new Error(`variant ${i} fails the panel: ${JSON.stringify(panel.details)}`);
  const submission = panel.value;
  return {
    resultId: randomUUID(),
    submissionId: randomUUID(),
    partnerSubmissionId: submission.partnerSubmissionId,
    partnerSubjectId: submission.partnerSubjectId,
    generatedAt: new Date(Date.UTC(2026, 10, 20, 9, 30, i)).toISOString(),
    submission,
    result: scoreSubmission(submission, { now: new Date('2026-12-01T00:00:00Z') }),
  };
}

const rand = prng(20261120);
const warmInputs = Array.from({ length: WARMUP }, (_, i) => variant(rand, -1 - i));
const inputs = Array.from({ length: N }, (_, i) => variant(rand, i));

const renderers = {
  build: (input) => buildReport(input),
  json: (_, report) => renderJson(report),
  html: (_, report) => renderHtml(report),
  pdf: (_, report) => renderPdf(report),
};

for (const input of warmInputs) {
  const report = buildReport(input);
  renderJson(report);
  renderHtml(report);
  await renderPdf(report);
}

const reports = inputs.map((input) => buildReport(input));
const times = Object.fromEntries(Object.keys(renderers).map((k) => [k, []]));
const cpu = Object.fromEntries(Object.keys(renderers).map((k) => [k, 0]));
const bytes = { json: 0, html: 0, pdf: 0 };
const started = performance.now();
for (let i = 0; i < N; i++) {
  for (const [name, render] of Object.entries(renderers)) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const out = await render(inputs[i], reports[i]);
    times[name].push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    cpu[name] += (c.user + c.system) / 1000;
    if (name in bytes) bytes[name] += out.length;
  }
}
const elapsed = performance.now() - started;

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
console.log(`${N} reports (node ${process.version}, one thread)\n`);
console.log('renderer   median ms   p95 ms   cpu ms   target ms   mean size');
for (const [name, list] of Object.entries(times)) {
  const sorted = [...list].sort((a, b) => a - b);
  const target = TARGETS[name] === null ? '-' : `≤ ${TARGETS[name]}`;
  const size = name in bytes ? `${Math.round(bytes[name] / N / 1024)} KiB` : '-';
  console.log(
    `${name.padEnd(10)} ${quantile(sorted, 0.5).toFixed(3).padStart(9)} ${quantile(sorted, 0.95).toFixed(3).padStart(8)} ${(cpu[name] / N).toFixed(3).padStart(8)}   ${target.padEnd(9)}   ${size}`,
  );
}
console.log(`\nall three artifacts: ${((N * 1000) / elapsed).toFixed(0)} reports/s on one thread`);
