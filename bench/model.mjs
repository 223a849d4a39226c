// npm run bench:model [-- --count 100000 --seed 20261120]
// Scores all five wellbeing outcomes for N valid, varied submissions on one core and prints
// submissions per second and the mean cost of each outcome. Submissions are generated from the
// spec example with a seeded PRNG and pass through parseSubmission + checkPanel (not timed), so
// every run scores the same inputs. Each figure is the fastest of three passes after a warm-up.
import { parseArgs } from 'node:util';
import { scoreSubmission } from '../dist/domain/model/index.js';
import { NOW, OUTCOMES, syntheticSubmissions } from './lib/synthetic.mjs';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '20261120' },
  },
});
const COUNT = Number(values.count);

const { generate } = syntheticSubmissions(Number(values.seed));

function withOutcomes(subs, outcomes) {
  return subs.map((s) => ({ ...s, options: { ...s.options, requestedOutcomes: outcomes } }));
}

/** Seconds to score every submission once; the checksum keeps the work observable. */
function runOnce(subs) {
  let checksum = 0;
  const start = process.hrtime.bigint();
  for (const s of subs) {
    const r = scoreSubmission(s, { now: NOW });
    for (const o of r.outcomes) checksum += o.score;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  return { seconds, checksum };
}

/** One untimed warm-up pass, then the fastest of three (the usual micro-benchmark estimator). */
function run(subs) {
  runOnce(subs);
  const passes = [runOnce(subs), runOnce(subs), runOnce(subs)];
  return passes.reduce((best, p) => (p.seconds < best.seconds ? p : best));
}

const genStart = process.hrtime.bigint();
const subs = generate(COUNT);
const genSeconds = Number(process.hrtime.bigint() - genStart) / 1e9;

const all = run(subs);
const base = run(withOutcomes(subs, []));
const perOutcome = OUTCOMES.map((id) => {
  const t = run(withOutcomes(subs, [id]));
  return { id, micros: Math.max(0, ((t.seconds - base.seconds) / COUNT) * 1e6) };
});

const rate = COUNT / all.seconds;
console.log(`generated ${COUNT} submissions in ${genSeconds.toFixed(1)} s (not timed below)`);
console.log(
  `scored ${COUNT} submissions × 5 outcomes in ${all.seconds.toFixed(2)} s: ${Math.round(rate).toLocaleString('en-GB')} submissions/s (${((all.seconds / COUNT) * 1e6).toFixed(1)} µs each; checksum ${all.checksum.toFixed(3)})`,
);
console.log(
  `shared per-submission work (inputs, derived values): ${((base.seconds / COUNT) * 1e6).toFixed(1)} µs`,
);
console.log('mean per outcome, beyond the shared work:');
for (const { id, micros } of perOutcome) console.log(`  ${id.padEnd(26)} ${micros.toFixed(1)} µs`);
if (rate < 20000) {
  console.log('below the 20,000 submissions/s target');
  process.exitCode = 1;
}
