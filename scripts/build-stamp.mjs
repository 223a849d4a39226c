// `npm run build`'s prebuild and postbuild: `start` drops the last build's stamp and notes when
// this build began; `done` (only after a build that succeeded) makes that note the stamp. The
// stamp keeps the start time, so a source saved during the build is newer than it and the next
// `npm start` builds again (scripts/build-if-stale.mjs).
import fs from 'node:fs';

const dist = new URL('../dist/', import.meta.url);
const started = new URL('.build-started', dist);
const stamp = new URL('.build-stamp', dist);

const step = process.argv[2];
if (step === 'start') {
  fs.mkdirSync(dist, { recursive: true });
  fs.rmSync(stamp, { force: true });
  fs.writeFileSync(started, `${new Date().toISOString()}\n`);
} else if (step === 'done') {
  fs.renameSync(started, stamp);
} else {
  process.stderr.write('usage: node scripts/build-stamp.mjs start|done\n');
  process.exit(2);
}
