import { systemClock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { Store, type StoreConfig } from '../../src/store/index.js';
import type { IngestCommand } from '../../src/store/repositories/ingest.js';
import { createTestDatabase, testStoreKind } from './database.js';
import { tempDataDir } from './dirs.js';

const configs = new WeakMap<Store, StoreConfig>();

/**
 * A migrated store on the store kind under test (HEALTHSPAN_TEST_STORE): SQLite in a fresh data
 * directory, or a fresh PostgreSQL database that `close()` drops.
 */
export async function openTestStore(
  policy: Partial<Pick<StoreConfig, 'slaSeconds' | 'jobMaxAttempts'>> = {},
): Promise<Store> {
  const database = testStoreKind() === 'postgres' ? await createTestDatabase() : undefined;
  const config: StoreConfig = {
    dataDir: tempDataDir(),
    databaseUrl: database?.url,
    slaSeconds: 300,
    jobMaxAttempts: 5,
    ...policy,
  };
  const store = Store.open(config, { clock: systemClock, logger: createLogger('silent') });
  configs.set(store, config);
  if (database) {
    const close = store.close.bind(store);
    store.close = async () => {
      try {
        await close();
      } finally {
        await database.drop();
      }
    };
  }
  await store.migrate();
  return store;
}

/**
 * Another store on the same database, with its own connections, as another process would have.
 * PostgreSQL only: the embedded store is one writer connection per process by design, and a
 * second better-sqlite3 connection in the same thread would block on the first one's lock.
 */
export function openSecondStore(store: Store): Store {
  const config = configs.get(store);
  if (!config?.databaseUrl) throw new Error('openSecondStore needs a PostgreSQL store from openTestStore');
  return Store.open(config, { clock: systemClock, logger: createLogger('silent') });
}

/** An ingest command with placeholder content, for store-level tests that need submissions. */
export function ingestCommand(
  account: { tenantId: string; partnerId: string },
  overrides: Partial<IngestCommand> = {},
): IngestCommand {
  return {
    tenantId: account.tenantId,
    partnerId: account.partnerId,
    idempotencyKeyHash: 'k1',
    keyId: '00000000-0000-4000-8000-000000000000',
    requestHash: 'h1',
    correlationId: 'c',
    requestId: 'r',
    partnerSubmissionId: 'ps',
    partnerSubjectId: 'subj',
    originalBody: '{}',
    normalisedBody: '{}',
    documentCount: 0,
    markerCount: 14,
    ...overrides,
  };
}
