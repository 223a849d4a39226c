import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The shape docs/architecture.md describes, as checks that bite: the import rules in biome.json
 * (run on every `npm test` by `biome check`) are shown to refuse each kind of forbidden import,
 * and the service reads the time only through its one clock.
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
  return [...output.matchAll(/^(src\/\S+):(\d+):\d+ (lint\/\S+)/gm)].map((m) => `${m[1]}:${m[2]} ${m[3]}`);
}

describe('import rules', () => {
  it('refuse a cycle, an impure domain, a route reaching the store or inside ingest, the store reaching ingest and reports reaching beyond domain/', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-imports-'));
    const use = (names: string) => `export const used = [${names}];\n`;
    write(dir, {
      // Allowed: inside domain/, zod, the scoped access, reports from domain/.
      'src/domain/statuses.ts': `import { z } from 'zod';\n${use('z')}`,
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
