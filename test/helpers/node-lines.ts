import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The maintained Node.js lines other than the one the tests run on, pinned, for what partners
 * run on their side (the client package's `engines` names them all): the binary comes from the
 * npm registry's node-linux-<arch> package, as `scripts/ensure-node.sh` gets the service's, and
 * is kept under test-output/ between runs.
 */
export const OTHER_LINES = { '22': '22.23.5', '26': '26.12.1' } as const;

const ROOT = path.resolve(import.meta.dirname, '../..');

export async function nodeOfLine(line: keyof typeof OTHER_LINES): Promise<string> {
  const version = OTHER_LINES[line];
  const dir = path.join(ROOT, 'test-output', `node-${version}`);
  const binary = path.join(dir, 'bin', 'node');
  if (fs.existsSync(binary)) return binary;
  const arch = process.arch === 'arm64' ? 'arm64' : 'x64';
  fs.mkdirSync(path.join(ROOT, 'test-output'), { recursive: true });
  const work = fs.mkdtempSync(path.join(ROOT, 'test-output', '.node-'));
  const exec = promisify(execFile);
  const { stdout } = await exec('npm', ['pack', '--silent', `node-linux-${arch}@${version}`], { cwd: work });
  fs.mkdirSync(path.join(work, 'unpacked'));
  await exec('tar', [
    'xzf',
    path.join(work, stdout.trim()),
    '-C',
    path.join(work, 'unpacked'),
    '--strip-components=1',
  ]);
  try {
    fs.renameSync(path.join(work, 'unpacked'), dir);
  } catch (error) {
    // Another test file installed it meanwhile: theirs is the same version.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error;
  }
  fs.rmSync(work, { recursive: true, force: true });
  return binary;
}
