// `npm start`'s first step: builds (`npm run build`) only when dist/ is missing or older than what
// it is built from, so a second start takes seconds instead of a full build. The build's stamp
// (dist/.build-stamp, scripts/build-stamp.mjs) carries the time that build began; anything below
// newer than it means stale. `--check` only says which, exiting 1 when a build is due.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const INPUTS = [
  'src',
  'packages/client/src',
  'packages/client/scripts',
  'packages/client/package.json',
  'packages/client/tsconfig.json',
  'packages/client/tsconfig.cjs.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
const OUTPUTS = [
  'dist/server.js',
  'dist/cli.js',
  'packages/client/dist/esm/index.js',
  'packages/client/dist/cjs/index.js',
];

/** The most recently changed file under `relative` (a file or a directory), or undefined. */
function newest(relative) {
  const full = path.join(root, relative);
  const stat = fs.statSync(full, { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (!stat.isDirectory()) return { file: relative, mtimeMs: stat.mtimeMs };
  let best;
  for (const entry of fs.readdirSync(full)) {
    const found = newest(path.join(relative, entry));
    if (found && (!best || found.mtimeMs > best.mtimeMs)) best = found;
  }
  return best;
}

/** Why a build is due, or undefined when dist/ is up to date. */
function staleness() {
  const stamp = fs.statSync(path.join(root, 'dist/.build-stamp'), { throwIfNoEntry: false });
  if (!stamp) return 'dist/ has no finished build';
  const missing = OUTPUTS.find((file) => !fs.existsSync(path.join(root, file)));
  if (missing) return `${missing} is missing`;
  for (const input of INPUTS) {
    const found = newest(input);
    if (found && found.mtimeMs > stamp.mtimeMs) return `${found.file} changed since the last build`;
  }
  return undefined;
}

const reason = staleness();
if (!reason) {
  process.stderr.write('healthspan: dist/ is up to date; not building\n');
} else if (process.argv.includes('--check')) {
  process.stderr.write(`healthspan: a build is due: ${reason}\n`);
  process.exitCode = 1;
} else {
  process.stderr.write(`healthspan: building dist/ (${reason})\n`);
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exitCode = build.status ?? 1;
}
