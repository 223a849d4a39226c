// node bench/lib/profile-summary.mjs FILE.cpuprofile [--top 40]
// Self time of a V8 CPU profile (node --cpu-prof), by function and by where the code lives
// (our src/, a package, Node internals, the garbage collector, idle), in percent of the samples.
import fs from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' } },
});
for (const file of positionals) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const counts = new Map();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const total = profile.samples.length;
  const fns = new Map();
  const places = new Map();
  const add = (map, key, n) => map.set(key, (map.get(key) ?? 0) + n);
  for (const [id, n] of counts) {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    const where = placeOf(url, functionName);
    add(places, where, n);
    add(fns, `${functionName || '(anonymous)'}  ${shortUrl(url)}:${lineNumber + 1}`, n);
  }
  const pct = (n) => `${((100 * n) / total).toFixed(1).padStart(5)} %`;
  console.log(`\n${file}: ${total} samples`);
  console.log('\nby place');
  for (const [k, n] of [...places].sort((a, b) => b[1] - a[1])) console.log(`${pct(n)}  ${k}`);
  console.log('\nby function (self)');
  for (const [k, n] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top)))
    console.log(`${pct(n)}  ${k}`);
}

function shortUrl(url) {
  return url.replace(/^file:\/\//, '').replace(/^.*?\/(node_modules|dist)\//, '$1/');
}

function placeOf(url, fn) {
  if (!url) return fn.startsWith('(') ? fn : `(native) ${fn}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const ours = /\/dist\/(.+?)\/[^/]+\.js$/.exec(url) ?? /\/dist\/([^/]+)\.js$/.exec(url);
  if (ours) return `src/${ours[1]}`;
  if (url.startsWith('node:')) return url;
  return url;
}
