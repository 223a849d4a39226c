import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDataDir } from '../helpers/dirs.js';
import { nodeOfLine } from '../helpers/node-lines.js';

/**
 * `eval "$(sh scripts/ensure-node.sh)"` (README, "Two commands"), in a copy of the script so the
 * repository's own .node/ is not touched: under an older Node it installs the pinned Node 24 from
 * the npm registry and puts it first on PATH; under Node 24 it prints nothing and installs nothing;
 * and the project's check says in one sentence what to install on an older one.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const exec = promisify(execFile);

function copyOfScripts(): string {
  const dir = tempDataDir();
  fs.mkdirSync(path.join(dir, 'scripts'));
  for (const name of ['ensure-node.sh', 'check-node.mjs']) {
    fs.copyFileSync(path.join(ROOT, 'scripts', name), path.join(dir, 'scripts', name));
  }
  return dir;
}

describe('scripts/ensure-node.sh', () => {
  it('installs Node 24 under an older Node, and the shell then runs it', async () => {
    const older = await nodeOfLine('22');
    const dir = copyOfScripts();
    const env = { ...process.env, PATH: `${path.dirname(older)}:${process.env.PATH}` };
    const refused = await exec('node', ['scripts/check-node.mjs'], { cwd: dir, env }).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(refused).toMatchObject({ code: 1 });
    expect((refused as { stderr: string }).stderr).toBe(
      'healthspan needs Node.js 24 LTS or later, and this is Node.js 22.23.5: install Node.js 24, or run eval "$(sh scripts/ensure-node.sh)" to put it in .node/ from the npm registry for this shell (README, "Runtime").\n',
    );
    const { stdout } = await exec(
      'sh',
      [
        '-c',
        'eval "$(sh scripts/ensure-node.sh)" && node --version && echo "$npm_config_nodedir" && node scripts/check-node.mjs',
      ],
      { cwd: dir, env },
    );
    expect(stdout.split('\n')).toEqual(['v24.22.3', path.join(dir, '.node'), '']);
    expect(fs.existsSync(path.join(dir, '.node/include/node/node_api.h'))).toBe(true);
  });

  it('prints nothing and installs nothing where Node 24 runs already', async () => {
    const dir = copyOfScripts();
    const { stdout, stderr } = await exec('sh', ['scripts/ensure-node.sh'], { cwd: dir });
    expect(process.versions.node.split('.')[0]).toBe('24');
    expect([stdout, stderr]).toEqual(['', '']);
    expect(fs.existsSync(path.join(dir, '.node'))).toBe(false);
  });
});
