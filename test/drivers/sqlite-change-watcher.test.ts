import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/index.js';
import { CHANGE_POLL_MS } from '../../src/store/sqlite/change-watcher.js';
import { tempDataDir } from '../helpers/dirs.js';
import { waitUntil } from '../helpers/pipeline.js';

const config = (dataDir: string) => ({ dataDir, databaseUrl: undefined, slaSeconds: 300, jobMaxAttempts: 5 });

/** A worker in a process of its own learns of another process's commits (SQLite's LISTEN). */
describe('the SQLite change watcher', () => {
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  it('wakes a subscribed worker when another connection commits, and not otherwise', async () => {
    const dataDir = tempDataDir();
    const worker = Store.open(config(dataDir));
    stores.push(worker);
    await worker.migrate();
    let wakes = 0;
    const unsubscribe = worker.system.notifier.subscribe(() => {
      wakes += 1;
    });

    // Nothing committed: ten intervals pass without a wake-up.
    await new Promise((r) => setTimeout(r, 10 * CHANGE_POLL_MS));
    expect(wakes).toBe(0);

    // Another connection to the same file (another process, in the service) commits.
    const api = Store.open(config(dataDir));
    stores.push(api);
    await api.system.accounts.createTenant('T');
    await waitUntil(async () => wakes > 0, 5_000, 'a wake-up after the other connection committed');

    // Unsubscribed, the watcher stops: a further commit wakes nobody.
    unsubscribe();
    await worker.system.notifier.close();
    const seen = wakes;
    await api.system.accounts.createTenant('U');
    await new Promise((r) => setTimeout(r, 10 * CHANGE_POLL_MS));
    expect(wakes).toBe(seen);
  });
});
