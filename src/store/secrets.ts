import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A secret generated once and kept in `DATA_DIR/secrets/NAME` (mode 0600), so every process
 * sharing the data directory uses the same one. Exclusive create settles a race between two
 * processes starting at once: the loser reads the winner's file.
 */
export function loadOrCreateSecret(dataDir: string, name: string, bytes = 32): Buffer {
  const dir = path.join(dataDir, 'secrets');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, name);
  try {
    const fd = fs.openSync(file, 'wx', 0o600);
    try {
      fs.writeSync(fd, randomBytes(bytes).toString('base64url'));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const text = fs.readFileSync(file, 'utf8').trim();
  if (text.length < 32) throw new Error(`secret file ${file} is too short; delete it to regenerate`);
  return Buffer.from(text, 'utf8');
}
