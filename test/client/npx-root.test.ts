import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * `npx healthspan listen` from the repository root, as the README says (issue 38: the root
 * package's operator command had the same name, so npx built the root package into its cache
 * and ran the operator's CLI). `npm ci` links the client workspace's command into
 * node_modules/.bin, and nothing else here is called `healthspan`.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

async function npx(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { HEALTHSPAN_API_KEY: _key, HEALTHSPAN_BASE_URL: _base, ...inherited } = process.env;
  try {
    const { stdout, stderr } = await promisify(execFile)('npx', ['--no', ...args], {
      cwd: ROOT,
      env: { ...inherited, ...env },
      encoding: 'utf8',
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? null, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

describe('npx healthspan, from the repository root', () => {
  it('is the partner’s command from the client workspace, linked by npm ci', () => {
    const linked = fs.realpathSync(path.join(ROOT, 'node_modules/.bin/healthspan'));
    expect(linked).toBe(path.join(ROOT, 'packages/client/bin/healthspan.js'));
    const root = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { bin: object };
    expect(Object.keys(root.bin)).toEqual(['healthspan-admin']);
  });

  it('runs `npx healthspan listen --help` as written', async () => {
    const res = await npx(['healthspan', 'listen', '--help']);
    expect(res, res.stderr).toMatchObject({ code: 0 });
    expect(res.stdout).toMatch(/^Usage: healthspan listen --forward-to <url> \[--base-url <url>\]/);
    expect(res.stderr).not.toContain('unknown command');
  });

  it('runs `npx healthspan listen …` and says what it needs', async () => {
    const res = await npx(['healthspan', 'listen', '--forward-to', 'http://localhost:3000/webhooks'], {
      HEALTHSPAN_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(res.code).toBe(2);
    expect(res.stderr).toBe('Set HEALTHSPAN_API_KEY to a test key (hs_test_…).\n');
  });
});
