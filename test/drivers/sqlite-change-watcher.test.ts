import { afterEach, describe, expect, it, vi } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { Store } from '../../src/store/index.js';
import { CHANGE_POLL_MS } from '../../src/store/sqlite/change-watcher.js';
import { tempDataDir } from '../helpers/dirs.js';

const config = (dataDir: string) => ({ dataDir, databaseUrl: undefined, slaSeconds: 300, jobMaxAttempts: 5 });

/** A worker in a process of its own learns of another process's commits (SQLite's LISTEN). */
describe('the SQLite change watcher', () => {
  const stores: Store[] = [];
  afterEach(async () => {
    vi.useRealTimers();
    await Promise.all(stores.splice(0).map((s) => s.close()));
  });

  it('wakes a subscribed worker when another connection commits, and not otherwise', async () => {
    // The watcher's interval is moved by hand: each step is one look at the database.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const dataDir = tempDataDir();
    const worker = Store.open(config(dataDir), { clock: systemClock, logger: createLogger('silent') });
    stores.push(worker);
    await worker.migrate();
    let wakes = 0;
    const unsubscribe = worker.system.notifier.subscribe(() => {
      wakes += 1;
    });

    // Nothing committed: ten looks find nothing new.
    vi.advanceTimersByTime(10 * CHANGE_POLL_MS);
    expect(wakes).toBe(0);

    // Another connection to the same file (another process, in the service) commits: the next
    // look sees it.
    const api = Store.open(config(dataDir), { clock: systemClock, logger: createLogger('silent') });
    stores.push(api);
    await api.system.accounts.createTenant('T');
    vi.advanceTimersByTime(CHANGE_POLL_MS);
    expect(wakes).toBeGreaterThan(0);

    // Unsubscribed, the watcher stops: a further commit wakes nobody.
    unsubscribe();
    await worker.system.notifier.close();
    const seen = wakes;
    await api.system.accounts.createTenant('U');
    vi.advanceTimersByTime(10 * CHANGE_POLL_MS);
    expect(wakes).toBe(seen);
  });
});
