import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checksIdentity, checksIdentityOf } from '../../src/ingest/checks-identity.js';

/** The fingerprint the door stores and the check step compares (docs/pipeline.md). */

function moduleTree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-checks-'));
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return dir;
}

describe('the checks’ fingerprint', () => {
  it('is one per process, of this code', () => {
    expect(checksIdentity()).toMatch(/^checks:[0-9a-f]{64}$/);
    expect(checksIdentity()).toBe(checksIdentity());
  });

  it('follows the imports, so a change to any module the checks use makes another one', () => {
    const dir = moduleTree({
      'check.js': `import { rule } from './rules.js';\nimport { z } from 'zod';\nexport const check = [rule, z];\n`,
      'rules.js': `export {\n  rule,\n} from './deeper.js';\n`,
      'deeper.js': 'export const rule = 1;\n',
      'unrelated.js': 'export const other = 1;\n',
    });
    const entry = pathToFileURL(path.join(dir, 'check.js'));
    const before = checksIdentityOf(entry);
    expect(checksIdentityOf(entry)).toBe(before);
    fs.writeFileSync(path.join(dir, 'unrelated.js'), 'export const other = 2;\n');
    expect(checksIdentityOf(entry)).toBe(before);
    fs.writeFileSync(path.join(dir, 'deeper.js'), 'export const rule = 2;\n');
    expect(checksIdentityOf(entry)).not.toBe(before);
  });

  it('is the same for the same code wherever it is installed', () => {
    const files = { 'check.js': `import './rules.js';\n`, 'rules.js': 'export const rule = 1;\n' };
    const [a, b] = [moduleTree(files), moduleTree(files)];
    expect(checksIdentityOf(pathToFileURL(path.join(a, 'check.js')))).toBe(
      checksIdentityOf(pathToFileURL(path.join(b, 'check.js'))),
    );
  });
});
