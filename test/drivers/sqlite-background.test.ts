import fs from 'node:fs';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { Store } from '../../src/store/index.js';
import { sqliteFile } from '../../src/store/sqlite/driver.js';
import { tempDataDir } from '../helpers/dirs.js';
import { waitUntil } from '../helpers/pipeline.js';

/** The checkpoint rules of src/store/sqlite/README.md: where and when the log is copied into the database file. */
describe('SQLite checkpoints', () => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
  });

  it('in a service: passive, on the writer thread; SQLite’s own only as an 80 MB backstop', async () => {
    const dataDir = tempDataDir();
    store = Store.open(
      { dataDir, databaseUrl: undefined, slaSeconds: 300, jobMaxAttempts: 5 },
      { clock: systemClock, logger: createLogger('silent'), background: true },
    );
    await store.migrate();
    const db = store.driver.db;
    // SQLite's own checkpoint, which runs inside a commit, only as a far-off backstop.
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(db);
    expect(rows[0]?.wal_autocheckpoint).toBe(20_000);

    const file = sqliteFile(dataDir);
    const before = fs.statSync(file).size;
    const tenant = await store.system.accounts.createTenant('T');
    // About 4 MB through the event loop's connection, far below the backstop (80 MB).
    const page = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 64; i++) {
      await store.system.batcher.submit((trx) =>
        trx
          .updateTable('tenants')
          .set({ name: `${page}${i}` })
          .where('id', '=', tenant.tenantId)
          .execute(),
      );
    }
    // Only a checkpoint writes pages into the database file itself.
    await waitUntil(async () => fs.statSync(file).size > before + 64 * 1024, 30_000, 'a checkpoint');
    expect(fs.statSync(file).size).toBeGreaterThan(before);
  });

  it('in a short-lived process (the CLI): SQLite’s own, at 1,000 pages', async () => {
    store = Store.open(
      { dataDir: tempDataDir(), databaseUrl: undefined, slaSeconds: 300, jobMaxAttempts: 5 },
      { clock: systemClock, logger: createLogger('silent') },
    );
    const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(
      store.driver.db,
    );
    expect(rows[0]?.wal_autocheckpoint).toBe(1000);
  });
});
