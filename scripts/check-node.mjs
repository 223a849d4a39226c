// Every build, start, test and bench runs this first (npm's `prebuild`, `pretest`, `start`): on a
// Node.js older than the lines this project supports it stops with one sentence saying what to
// install. Written for any Node that can run an ES module, so it can say so on an old one.
const SUPPORTED = 24;
const major = Number(process.versions.node.split('.')[0]);
if (major < SUPPORTED) {
  process.stderr.write(
    `healthspan needs Node.js ${SUPPORTED} LTS or later, and this is Node.js ${process.versions.node}: install Node.js ${SUPPORTED}, or run eval "$(sh scripts/ensure-node.sh)" to put it in .node/ from the npm registry for this shell (README, "Runtime").\n`,
  );
  process.exit(1);
}
