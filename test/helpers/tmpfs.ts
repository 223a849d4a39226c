import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDataDir } from './dirs.js';

/**
 * A small file system of its own (tmpfs), to fill to the brim, make read-only and empty again
 * under a running service: the faults the erasure ledger must survive, on a real file system.
 * Mounting needs root, which CI has (`.ci/run` runs as root).
 */
export interface SmallFileSystem {
  dir: string;
  /** Writes a filler file until the file system refuses another byte. */
  fill(): void;
  /** Removes the filler. */
  free(): void;
  readOnly(on: boolean): void;
  unmount(): void;
}

export function mountSmallFileSystem(sizeKiB = 64): SmallFileSystem {
  if (process.getuid?.() !== 0) {
    throw new Error('the ledger fault tests mount a tmpfs, which needs root: run them as root (CI does)');
  }
  const dir = tempDataDir();
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKiB}k,mode=0700`, 'tmpfs', dir]);
  const filler = path.join(dir, 'filler');
  const mount = (options: string) => execFileSync('mount', ['-o', `remount,${options}`, dir]);
  return {
    dir,
    fill() {
      const fd = fs.openSync(filler, 'a');
      try {
        for (const size of [16384, 4096, 512, 1]) {
          const chunk = Buffer.alloc(size, 0x78);
          for (;;) {
            try {
              if (fs.writeSync(fd, chunk) < size) break;
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
              break;
            }
          }
        }
      } finally {
        fs.closeSync(fd);
      }
    },
    free() {
      fs.rmSync(filler, { force: true });
    },
    readOnly(on) {
      mount(on ? 'ro' : 'rw');
    },
    unmount() {
      execFileSync('umount', ['-l', dir]);
    },
  };
}
