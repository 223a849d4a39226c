import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDataDir } from '../helpers/dirs.js';

/**
 * `npm start` builds only when dist/ is stale (issue 38: a second start rebuilt everything, 40 s
 * to /ready). The real scripts, copied into a throw-away tree laid out as the repository's, so
 * the staleness rules are exercised without touching this checkout's sources or its build.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const OUTPUTS = [
  'dist/server.js',
  'dist/cli.js',
  'packages/client/dist/esm/index.js',
  'packages/client/dist/cjs/index.js',
];

function tree(): string {
  const dir = tempDataDir();
  fs.mkdirSync(path.join(dir, 'scripts'));
  for (const script of ['build-if-stale.mjs', 'build-stamp.mjs']) {
    fs.copyFileSync(path.join(ROOT, 'scripts', script), path.join(dir, 'scripts', script));
  }
  for (const file of ['src/server.ts', 'src/cli/main.ts', 'packages/client/src/index.ts', 'package.json']) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), '// source\n');
  }
  return dir;
}

/** A build in `dir`, as `npm run build` brackets it: the stamp's start, the outputs, the stamp. */
function build(dir: string, outputs = OUTPUTS): void {
  expect(stamp(dir, 'start').status).toBe(0);
  for (const file of outputs) {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    fs.writeFileSync(path.join(dir, file), '// built\n');
  }
  expect(stamp(dir, 'done').status).toBe(0);
}

function stamp(dir: string, step: string) {
  return spawnSync(process.execPath, ['scripts/build-stamp.mjs', step], { cwd: dir, encoding: 'utf8' });
}

function check(dir: string) {
  const res = spawnSync(process.execPath, ['scripts/build-if-stale.mjs', '--check'], {
    cwd: dir,
    encoding: 'utf8',
  });
  return { code: res.status, said: res.stderr.trim() };
}

/** Moves a file's modification time `seconds` away from the build stamp's. */
function touch(dir: string, file: string, seconds: number): void {
  const at = fs.statSync(path.join(dir, 'dist/.build-stamp')).mtimeMs / 1000 + seconds;
  fs.utimesSync(path.join(dir, file), at, at);
}

describe('scripts/build-if-stale.mjs', () => {
  it('builds when there is no finished build', () => {
    const dir = tree();
    expect(check(dir)).toEqual({ code: 1, said: 'healthspan: a build is due: dist/ has no finished build' });
    // A build that began and never finished (it failed) leaves no stamp either.
    expect(stamp(dir, 'start').status).toBe(0);
    expect(check(dir).said).toContain('dist/ has no finished build');
  });

  it('does not build when nothing changed since the last build, and builds when a source did', () => {
    const dir = tree();
    build(dir);
    for (const file of ['src/server.ts', 'src/cli/main.ts', 'packages/client/src/index.ts', 'package.json']) {
      touch(dir, file, -10);
    }
    expect(check(dir)).toEqual({ code: 0, said: 'healthspan: dist/ is up to date; not building' });
    touch(dir, 'src/cli/main.ts', 2);
    expect(check(dir)).toEqual({
      code: 1,
      said: `healthspan: a build is due: ${path.join('src', 'cli', 'main.ts')} changed since the last build`,
    });
    touch(dir, 'src/cli/main.ts', -10);
    touch(dir, 'packages/client/src/index.ts', 2);
    expect(check(dir).said).toContain('packages/client/src/index.ts changed since the last build');
  });

  it('dates the stamp from when the build began, so a source saved during the build is newer', () => {
    const dir = tree();
    for (const file of ['src/server.ts', 'src/cli/main.ts', 'packages/client/src/index.ts', 'package.json']) {
      const before = Date.now() / 1000 - 10;
      fs.utimesSync(path.join(dir, file), before, before);
    }
    expect(stamp(dir, 'start').status).toBe(0);
    // Saved half a second after the build began, before it finished.
    const saved = fs.statSync(path.join(dir, 'dist/.build-started')).mtimeMs / 1000 + 0.5;
    fs.utimesSync(path.join(dir, 'src/server.ts'), saved, saved);
    for (const file of OUTPUTS) {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), '// built\n');
    }
    expect(stamp(dir, 'done').status).toBe(0);
    expect(check(dir).said).toBe('healthspan: a build is due: src/server.ts changed since the last build');
  });

  it('builds when an output is missing', () => {
    const dir = tree();
    build(dir, OUTPUTS.slice(0, 3));
    for (const file of ['src/server.ts', 'src/cli/main.ts', 'packages/client/src/index.ts', 'package.json']) {
      touch(dir, file, -10);
    }
    expect(check(dir)).toEqual({
      code: 1,
      said: 'healthspan: a build is due: packages/client/dist/cjs/index.js is missing',
    });
  });
});
