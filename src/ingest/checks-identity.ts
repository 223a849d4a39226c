import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sha256Hex } from '../hash.js';

/**
 * Which checks a process runs on a submission (`check.ts`), as a fingerprint: the door stores it
 * with what it accepted, and the worker skips the checks it would run again only when its own
 * fingerprint is the same (docs/pipeline.md, "What the door recorded").
 *
 * Derived from the code, not declared: a version number someone must remember to raise is one
 * someone forgets, and then a changed check would silently not run on submissions accepted
 * before it. It covers every module `check.ts` imports, transitively, as this process runs them
 * (the built `.js`, or the `.ts` sources under the tests), the version of each package they
 * import (zod's schemas, the JSON tokenizer), and Node's (its `JSON.parse`). Any edit there, a
 * comment's included, makes a new fingerprint: the cost of a false "changed" is one check run
 * again per submission waiting across a deploy, the cost of a false "same" a check skipped.
 */
export function checksIdentity(): string {
  identity ??= checksIdentityOf(new URL('./check.js', import.meta.url));
  return identity;
}

// Taken once per process, on first use: reading and hashing the modules takes some 30 ms, which
// a command that accepts and checks nothing (most of the CLI's) should not spend at its start;
// the service takes it as it starts (`startService`), so its first submission does not wait.
let identity: string | undefined;

const IMPORT = /(?:\bfrom|\bimport)\s*\(?\s*['"]([^'"]+)['"]/g;

/** The fingerprint of the module at `entry` and what it imports (exported for its tests). */
export function checksIdentityOf(entry: URL): string {
  const files = new Map<string, string>();
  const packages = new Map<string, string>();
  const require = createRequire(entry);
  const visit = (file: string) => {
    if (files.has(file)) return;
    const text = fs.readFileSync(file, 'utf8');
    files.set(file, text);
    for (const [, spec] of text.matchAll(IMPORT)) {
      if (spec === undefined || spec.startsWith('node:')) continue;
      if (spec.startsWith('.')) {
        const next = moduleFile(path.resolve(path.dirname(file), spec));
        if (next) visit(next);
      } else {
        const name = packageName(spec);
        if (!packages.has(name)) packages.set(name, packageVersion(require, name));
      }
    }
  };
  const first = moduleFile(fileURLToPath(entry));
  if (!first) throw new Error(`the checks' module is missing beside ${fileURLToPath(entry)}`);
  visit(first);
  // Relative paths, so the same build has the same fingerprint wherever it is installed.
  const root = path.dirname(first);
  const parts = [
    `node ${process.version}`,
    ...[...packages].sort().map(([name, version]) => `package ${name}@${version}`),
    ...[...files].map(([file, text]) => `module ${path.relative(root, file)} ${sha256Hex(text)}`).sort(),
  ];
  return `checks:${sha256Hex(parts.join('\n'))}`;
}

/** The file a relative import names: as written (built), or its `.ts` source (tests). */
function moduleFile(resolved: string): string | undefined {
  for (const candidate of [resolved, resolved.replace(/\.js$/, '.ts')]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function packageName(spec: string): string {
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? spec);
}

/** The installed version, from the package.json above its entry (some do not export theirs). */
function packageVersion(require: NodeJS.Require, name: string): string {
  let entry: string;
  try {
    entry = require.resolve(name);
  } catch {
    // Not installed where this module is: it could not be imported either.
    return 'not found';
  }
  let dir = path.dirname(entry);
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (fs.existsSync(manifest)) {
      const json = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string; version?: string };
      if (json.name === name) return json.version ?? 'unknown';
    }
    const parent = path.dirname(dir);
    if (parent === dir) return 'unknown';
    dir = parent;
  }
}
