import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as TypeScript from '../tools/openapi-types/node_modules/typescript/lib/typescript.js';

/**
 * The shape docs/architecture.md describes, as checks that bite: the import rules in biome.json
 * (run on every `npm test` by `biome check`) are shown to refuse each kind of forbidden import,
 * the service reads the time only through its one clock, and no function in src/ is one a
 * newcomer must scroll.
 */

const ROOT = path.resolve(import.meta.dirname, '..');
const BIOME = path.join(ROOT, 'node_modules', '.bin', 'biome');

function write(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
}

/** `file:line rule` for every diagnostic biome reports on `dir`, linted with this project's rules. */
function lint(dir: string): string[] {
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'biome.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  delete config.$schema;
  fs.writeFileSync(path.join(dir, 'biome.json'), JSON.stringify(config));
  let output: string;
  try {
    output = execFileSync(BIOME, ['lint', '--max-diagnostics=100', '.'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    output = `${e.stdout ?? ''}${e.stderr ?? ''}`;
  }
  return [...output.matchAll(/^((?:src|test)\/\S+):(\d+):\d+ (lint\/\S+)/gm)].map(
    (m) => `${m[1]}:${m[2]} ${m[3]}`,
  );
}

describe('import rules', () => {
  it('refuse a cycle, an impure domain, a route reaching the store or inside ingest, the store reaching ingest and reports reaching beyond domain/', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-imports-'));
    const use = (names: string) => `export const used = [${names}];\n`;
    write(dir, {
      // Allowed: inside domain/, zod and lru-cache, the scoped access, reports from domain/.
      'src/domain/statuses.ts': `import { z } from 'zod';\n${use('z')}`,
      'src/domain/model/verdicts.ts': `import { LRUCache } from 'lru-cache';\n${use('LRUCache')}`,
      'src/domain/model/inputs.ts': `import { used as s } from '../statuses.js';\n${use('s')}`,
      'src/domain/model/derived/age.ts': `import { used as i } from '../inputs.js';\n${use('i')}`,
      'src/store/tenant-access.ts': use('1'),
      'src/store/index.ts': use('2'),
      'src/http/routes/ok.ts': `import { used as t } from '../../store/tenant-access.js';\n${use('t')}`,
      'src/reports/model.ts': `import { used as d } from '../domain/statuses.js';\n${use('d')}`,
      'src/ingest/index.ts': use('3'),
      'src/ingest/check.ts': use('4'),
      'src/http/routes/submit.ts': `import { used as i } from '../../ingest/index.js';\n${use('i')}`,
      // Refused, one each.
      'src/domain/ids.ts': `import { v7 } from 'uuid';\n${use('v7')}`,
      'src/domain/model/types.ts': `import { used as s } from '../../store/index.js';\n${use('s')}`,
      'src/domain/model/derived/sex.ts': `import { used as s } from '../../../store/index.js';\n${use('s')}`,
      'src/http/routes/bad.ts': `import { used as s } from '../../store/index.js';\n${use('s')}`,
      'src/reports/render.ts': `import { used as s } from '../store/index.js';\n${use('s')}`,
      'src/http/routes/inside.ts': `import { used as c } from '../../ingest/check.js';\n${use('c')}`,
      'src/store/repositories/decides.ts': `import { used as i } from '../../ingest/index.js';\n${use('i')}`,
      'src/queue/worker.ts': `import type { Jobs } from '../store/jobs.js';\nexport type Worker = Jobs;\n`,
      'src/store/jobs.ts': `import type { Worker } from '../queue/worker.js';\nexport type Jobs = Worker | 1;\n`,
    });
    try {
      expect(lint(dir).sort()).toEqual([
        'src/domain/ids.ts:1 lint/style/noRestrictedImports',
        'src/domain/model/derived/sex.ts:1 lint/style/noRestrictedImports',
        'src/domain/model/types.ts:1 lint/style/noRestrictedImports',
        'src/http/routes/bad.ts:1 lint/style/noRestrictedImports',
        'src/http/routes/inside.ts:1 lint/style/noRestrictedImports',
        'src/queue/worker.ts:1 lint/suspicious/noImportCycles',
        'src/reports/render.ts:1 lint/style/noRestrictedImports',
        'src/store/jobs.ts:1 lint/suspicious/noImportCycles',
        'src/store/repositories/decides.ts:1 lint/style/noRestrictedImports',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('surfaces and operations (issue 40)', () => {
  it('let routes, console pages and commands call operations/, never each other; operations/ import no surface', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-surface-imports-'));
    const use = (names: string) => `export const used = [${names}];\n`;
    const from = (file: string) => `import { used as u } from '${file}';\n${use('u')}`;
    write(dir, {
      'src/store/tenant-access.ts': use('1'),
      'src/store/index.ts': use('2'),
      'src/webhooks/guard.ts': use('3'),
      'src/cli/output.ts': use('4'),
      'src/http/errors.ts': use('5'),
      'src/http/event-list.ts': from('../operations/events.js'),
      'src/http/routes/events.ts': from('../event-list.js'),
      'src/http/console/context.ts': use('6'),
      // Allowed: the app and the API description assemble routes and console; a route, a console
      // page and a command call an operation (and a shared http/ file); routes and console pages
      // import their own siblings; an operation reaches the scoped access and the layers below.
      'src/operations/events.ts': `import { used as t } from '../store/tenant-access.js';\nimport { used as g } from '../webhooks/guard.js';\n${use('t, g')}`,
      'src/http/app.ts': `import { used as r } from './routes/events.js';\nimport { used as c } from './console/context.js';\nimport { used as o } from './openapi.js';\n${use('r, c, o')}`,
      'src/http/openapi.ts': `import { used as r } from './routes/events.js';\nimport { used as c } from './console/context.js';\n${use('r, c')}`,
      'src/http/routes/recover.ts': `import { used as o } from '../../operations/events.js';\nimport { used as r } from './events.js';\n${use('o, r')}`,
      'src/http/console/callbacks.tsx': `import { used as o } from '../../operations/events.js';\nimport { used as e } from '../event-list.js';\nimport { used as c } from './context.js';\n${use('o, e, c')}`,
      'src/http/console/pages/event.tsx': from('../context.js'),
      'src/cli/events.ts': `import { used as o } from '../operations/events.js';\nimport { used as p } from './output.js';\n${use('o, p')}`,
      'src/service.ts': from('./http/app.js'),
      'test/http/white-box.test.ts': `import { used as r } from '../../src/http/routes/events.js';\nimport { used as c } from '../../src/http/console/context.js';\n${use('r, c')}`,
      // Refused, one each.
      'src/cli/shared-http.ts': from('../http/errors.js'),
      'src/cli/console-link.ts': from('../http/console/context.js'),
      'src/cli/deep-pdf.ts': from('../reports/pdf/fonts.js'),
      'src/http/uses-cli.ts': from('../cli/output.js'),
      'src/http/console/uses-cli.tsx': from('../../cli/output.js'),
      'src/http/app-helper.ts': from('./routes/events.js'),
      'src/http/console-helper.ts': from('./console/context.js'),
      'src/http/console/uses-route.tsx': from('../routes/events.js'),
      'src/http/console/pages/uses-route.tsx': from('../../routes/events.js'),
      'src/http/routes/uses-console.ts': from('../console/context.js'),
      'src/operations/uses-http.ts': from('../http/errors.js'),
      'src/operations/uses-cli.ts': from('../cli/output.js'),
      'src/operations/uses-store.ts': from('../store/index.js'),
      'src/operations/deep-pdf.ts': from('../reports/pdf/fonts.js'),
      'src/readiness.ts': from('./http/routes/events.js'),
      'src/service-role.ts': from('./http/console/context.js'),
      'src/store/uses-route.ts': from('../http/routes/events.js'),
    });
    try {
      expect(lint(dir).sort()).toEqual([
        'src/cli/console-link.ts:1 lint/style/noRestrictedImports',
        'src/cli/deep-pdf.ts:1 lint/style/noRestrictedImports',
        'src/cli/shared-http.ts:1 lint/style/noRestrictedImports',
        'src/http/app-helper.ts:1 lint/style/noRestrictedImports',
        'src/http/console-helper.ts:1 lint/style/noRestrictedImports',
        'src/http/console/pages/uses-route.tsx:1 lint/style/noRestrictedImports',
        'src/http/console/uses-cli.tsx:1 lint/style/noRestrictedImports',
        'src/http/console/uses-route.tsx:1 lint/style/noRestrictedImports',
        'src/http/routes/uses-console.ts:1 lint/style/noRestrictedImports',
        'src/http/uses-cli.ts:1 lint/style/noRestrictedImports',
        'src/operations/deep-pdf.ts:1 lint/style/noRestrictedImports',
        'src/operations/uses-cli.ts:1 lint/style/noRestrictedImports',
        'src/operations/uses-http.ts:1 lint/style/noRestrictedImports',
        'src/operations/uses-store.ts:1 lint/style/noRestrictedImports',
        'src/readiness.ts:1 lint/style/noRestrictedImports',
        'src/service-role.ts:1 lint/style/noRestrictedImports',
        'src/store/uses-route.ts:1 lint/style/noRestrictedImports',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the store as the only door to the data (issue 48)', () => {
  it('lets only store/ import the database and object store clients', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-door-imports-'));
    const pkg = (name: string) => `import client from '${name}';\nexport const used = [client];\n`;
    write(dir, {
      // Allowed: the store's drivers and its object store.
      'src/store/sqlite/driver.ts': pkg('better-sqlite3'),
      'src/store/postgres/connect.ts': pkg('pg'),
      'src/store/object-store/s3.ts': pkg('minio'),
      'src/store/object-store/signed-put.ts': pkg('aws4'),
      // Refused, one each: a layer above opening the data itself.
      'src/lifecycle/backup-copy.ts': pkg('better-sqlite3'),
      'src/cli/psql.ts': pkg('pg'),
      'src/http/routes/bytes.ts': pkg('minio'),
      'src/operations/sign.ts': pkg('aws4'),
      'src/reports/cache.ts': pkg('better-sqlite3'),
    });
    try {
      expect(lint(dir).sort()).toEqual([
        'src/cli/psql.ts:1 lint/style/noRestrictedImports',
        'src/http/routes/bytes.ts:1 lint/style/noRestrictedImports',
        'src/lifecycle/backup-copy.ts:1 lint/style/noRestrictedImports',
        'src/operations/sign.ts:1 lint/style/noRestrictedImports',
        'src/reports/cache.ts:1 lint/style/noRestrictedImports',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the PDF engine (src/reports/pdf/)', () => {
  it('is reached through its entry only, and reaches nothing of ours outside itself but the shared cache', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-pdf-imports-'));
    const use = (names: string) => `export const used = [${names}];\n`;
    const from = (file: string) => `import { used as u } from '${file}';\n${use('u')}`;
    write(dir, {
      'src/reports/recent-cache.ts': use('1'),
      'src/reports/model.ts': use('2'),
      'src/reports/pdf/fonts.ts': use('3'),
      // Allowed: the entry from the layout, the worker, an HTTP route and a black-box test;
      // inside the engine, its own files and the shared cache; its white-box tests, anything.
      'src/reports/pdf/index.ts': from('./fonts.js'),
      'src/reports/pdf/document.ts': `import { used as c } from '../recent-cache.js';\nimport { used as f } from './fonts.js';\n${use('c, f')}`,
      'src/reports/render-pdf.ts': from('./pdf/index.js'),
      'src/pipeline/render-worker.ts': from('../reports/pdf/index.js'),
      'src/http/routes/report.ts': from('../../reports/pdf/index.js'),
      'test/reports/pdf-reference/entry.test.ts': from('../../../src/reports/pdf/index.js'),
      'test/reports/pdf/fonts.test.ts': from('../../../src/reports/pdf/fonts.js'),
      // Refused, one each: a deep import from every kind of place, and the engine reaching into the report.
      'src/reports/render-deep.ts': from('./pdf/fonts.js'),
      'src/reports/fhir/deep.ts': from('../pdf/fonts.js'),
      'src/pipeline/deep.ts': from('../reports/pdf/fonts.js'),
      'src/http/routes/deep.ts': from('../../reports/pdf/fonts.js'),
      'test/reports/pdf-reference/deep.test.ts': from('../../../src/reports/pdf/fonts.js'),
      'src/reports/pdf/layout.ts': from('../model.js'),
    });
    try {
      expect(lint(dir).sort()).toEqual([
        'src/http/routes/deep.ts:1 lint/style/noRestrictedImports',
        'src/pipeline/deep.ts:1 lint/style/noRestrictedImports',
        'src/reports/fhir/deep.ts:1 lint/style/noRestrictedImports',
        'src/reports/pdf/layout.ts:1 lint/style/noRestrictedImports',
        'src/reports/render-deep.ts:1 lint/style/noRestrictedImports',
        'test/reports/pdf-reference/deep.test.ts:1 lint/style/noRestrictedImports',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('time', () => {
  it('is read through the one clock (src/clock.ts) everywhere but where real elapsed time is the point', () => {
    // Lock waits measure how long this process has waited.
    const allowed = new Set(['src/clock.ts', 'src/store/locks.ts', 'src/store/sqlite/busy.ts']);
    const readers: string[] = [];
    const visit = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory()) visit(file);
        else if (file.endsWith('.ts')) {
          const relative = path.relative(ROOT, file);
          const code = fs
            .readFileSync(file, 'utf8')
            .replace(/\/\*[\s\S]*?\*\//g, '')
            .replace(/\/\/.*$/gm, '');
          if (/new Date\(\)|\bDate\.now\b/.test(code) && !allowed.has(relative)) readers.push(relative);
        }
      }
    };
    visit(path.join(ROOT, 'src'));
    expect(readers).toEqual([]);
  });
});

/**
 * The house rule counts a function from its first line to its last. Biome's
 * `noExcessiveLinesPerFunction` counts only some lines of the body (it put the 98-line
 * `startService` at 80), so the rule is checked here with the TypeScript 5 compiler API: the
 * root's TypeScript 7 has none, and tools/openapi-types installs 5 for openapi-typescript.
 */
const MAX_FUNCTION_LINES = 80;

/** Files allowed a long function for now, each with its reason; none since issue 29's splits. */
const LONG_FUNCTIONS_PENDING = new Set<string>();

function typescript(): typeof TypeScript {
  const entry = path.join(ROOT, 'tools', 'openapi-types', 'node_modules', 'typescript');
  if (!fs.existsSync(entry)) throw new Error(`TypeScript 5 is not installed at ${entry}: run npm ci`);
  return createRequire(import.meta.url)(entry) as typeof TypeScript;
}

/**
 * `file:line name (n lines)` for every function under `root`/src longer than `limit` lines, from
 * its first line (after its doc comment) to its last; migrations and generated code aside.
 */
function longFunctions(root: string, limit: number, skip: ReadonlySet<string> = new Set()): string[] {
  const ts = typescript();
  const found: string[] = [];
  const nameOf = (n: TypeScript.SignatureDeclaration): string => {
    if (n.name) return n.name.getText();
    if (ts.isConstructorDeclaration(n)) return 'constructor';
    if (ts.isVariableDeclaration(n.parent) || ts.isPropertyAssignment(n.parent))
      return n.parent.name.getText();
    return '(anonymous)';
  };
  const check = (file: string) => {
    const relative = path.relative(root, file).split(path.sep).join('/');
    if (skip.has(relative)) return;
    const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (n: TypeScript.Node) => {
      if (ts.isFunctionLike(n) && 'body' in n && n.body) {
        const first = source.getLineAndCharacterOfPosition(n.getStart()).line;
        const lines = source.getLineAndCharacterOfPosition(n.end).line - first + 1;
        if (lines > limit) found.push(`${relative}:${first + 1} ${nameOf(n)} (${lines} lines)`);
      }
      ts.forEachChild(n, visit);
    };
    visit(source);
  };
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!/migrations|generated/.test(entry.name)) walk(file);
      } else if (/\.[cm]?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) check(file);
    }
  };
  walk(path.join(root, 'src'));
  return found.sort();
}

describe('function length', () => {
  it(`no function in src/ runs over ${MAX_FUNCTION_LINES} lines (migrations and generated code aside)`, () => {
    expect(longFunctions(ROOT, MAX_FUNCTION_LINES, LONG_FUNCTIONS_PENDING)).toEqual([]);
    // An exclusion no longer needed fails too, so the list cannot outlive its reason.
    const pending = longFunctions(ROOT, MAX_FUNCTION_LINES).map((found) => found.split(':')[0]);
    expect([...LONG_FUNCTIONS_PENDING].filter((file) => !pending.includes(file))).toEqual([]);
  });

  it('the count refuses a function of 81 lines of any kind and lets one of 80 through', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-lengths-'));
    /** A function of `lines` lines, its own first and last line included. */
    const body = (lines: number) => `{\n${'  void 0;\n'.repeat(lines - 2)}}`;
    write(dir, {
      'src/ok.ts': `/** A doc comment is not counted. */\nexport function fits() ${body(80)}\n`,
      'src/declaration.ts': `export function long() ${body(81)}\n`,
      'src/arrow.ts': `export const arrow = () => ${body(81)};\n`,
      'src/kinds.ts': [
        `export class Kinds {`,
        `  constructor() ${body(81)}`,
        `  method() ${body(81)}`,
        `}`,
        `export const table = { entry: function () ${body(81)} };`,
        `export function outer() {\n  return [1].map(() => ${body(81)});\n}`,
        '',
      ].join('\n'),
      'src/store/migrations/0001_long.ts': `export function up() ${body(200)}\n`,
      'src/generated/types.ts': `export function generated() ${body(200)}\n`,
      'src/pending.ts': `export function pending() ${body(200)}\n`,
    });
    try {
      expect(longFunctions(dir, MAX_FUNCTION_LINES, new Set(['src/pending.ts']))).toEqual([
        'src/arrow.ts:1 arrow (81 lines)',
        'src/declaration.ts:1 long (81 lines)',
        'src/kinds.ts:165 entry (81 lines)',
        'src/kinds.ts:2 constructor (81 lines)',
        'src/kinds.ts:246 outer (83 lines)',
        'src/kinds.ts:247 (anonymous) (81 lines)',
        'src/kinds.ts:83 method (81 lines)',
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
