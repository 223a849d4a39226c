import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verifyBackup } from '../../src/lifecycle/backup.js';
import { BackupScheduler, lastBackupSeconds, listBackups } from '../../src/lifecycle/backup-scheduler.js';
import { createLogger } from '../../src/logger.js';
import { Store } from '../../src/store/index.js';
import { sqliteFile } from '../../src/store/sqlite/driver.js';
import { ManualClock } from '../helpers/clock.js';
import { tempDataDir } from '../helpers/service.js';

const HOUR = 3_600_000;

/** The id of a process that ran and has ended. */
function deadPid(): number {
  const ended = spawnSync(process.execPath, ['-e', '']);
  if (ended.pid === undefined) throw new Error('no process could be started');
  return ended.pid;
}

/**
 * Scheduled backups (`BACKUP_DIR`): one per interval whatever the passes, each checked and named
 * only once complete, the newest `BACKUP_KEEP` kept, what killed backups left removed; the clock
 * is the test's, moved, not waited.
 */
describe('scheduled backups', () => {
  it('writes one checked backup per interval and keeps the newest ones', async () => {
    const dataDir = tempDataDir();
    const dir = path.join(tempDataDir(), 'backups');
    const clock = new ManualClock();
    clock.set(Date.parse('2026-11-01T00:00:00Z'));
    const store = Store.open(
      { dataDir, databaseUrl: undefined, slaSeconds: 300, jobMaxAttempts: 5 },
      { clock: clock.date, logger: createLogger('silent') },
    );
    await store.migrate();
    try {
      const scheduler = new BackupScheduler({
        source: sqliteFile(dataDir),
        dir,
        intervalMs: HOUR,
        keep: 2,
        clock: clock.date,
      });
      expect(await scheduler.runOnce()).toEqual({ written: 1, deleted: 0, leftovers: 0 });
      clock.advance(HOUR / 2);
      expect(await scheduler.runOnce()).toEqual({ written: 0, deleted: 0, leftovers: 0 });
      // What a killed backup leaves: its copy under a temporary name (its process gone), and a
      // manifest whose copy never took its name. The next pass removes both, whether or not a
      // backup is due, and counts them.
      const dead = deadPid();
      fs.writeFileSync(path.join(dir, `healthspan-20261101T003000Z.sqlite.partial-${dead}`), 'copy');
      fs.writeFileSync(path.join(dir, `healthspan-20261101T003000Z.sqlite.partial-${dead}-journal`), '');
      fs.writeFileSync(path.join(dir, 'healthspan-20261101T003001Z.sqlite.manifest.json'), '{}');
      const alive = path.join(dir, `healthspan-20261101T003002Z.sqlite.partial-${process.ppid}`);
      fs.writeFileSync(alive, 'a running backup of another process');
      expect(await scheduler.runOnce()).toEqual({ written: 0, deleted: 0, leftovers: 3 });
      expect(fs.existsSync(alive)).toBe(true);
      fs.rmSync(alive);
      clock.advance(HOUR / 2);
      expect(await scheduler.runOnce()).toEqual({ written: 1, deleted: 0, leftovers: 0 });
      clock.advance(HOUR);
      expect(await scheduler.runOnce()).toEqual({ written: 1, deleted: 1, leftovers: 0 });

      const kept = listBackups(dir);
      expect(kept.map((b) => path.basename(b.file))).toEqual([
        'healthspan-20261101T020000Z.sqlite',
        'healthspan-20261101T010000Z.sqlite',
      ]);
      for (const { file } of kept)
        expect((await verifyBackup(file)).createdAt).toMatch(/^2026-11-01T0[12]:00:00/);
      // Nothing else in the directory: no partial file, no manifest without its copy.
      expect(fs.readdirSync(dir).sort()).toEqual(
        kept.flatMap((b) => [path.basename(b.file), `${path.basename(b.file)}.manifest.json`]).sort(),
      );
      expect(lastBackupSeconds(dir)).toBe(Date.parse('2026-11-01T02:00:00Z') / 1000);
    } finally {
      await store.close();
    }
  });
});
