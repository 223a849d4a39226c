import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { systemClock } from '../clock.js';
import { type Config, loadConfig } from '../config.js';
import { createLogger } from '../logger.js';
import { NoStoreError, Store, type SystemStore } from '../store/index.js';
import { operatorOrigin } from '../store/repositories/accounts.js';
import { UsageError } from './arguments.js';

/** Every change a command makes is audited as the operator's, under one id per command. */
export const ORIGIN = operatorOrigin(`cli:${randomUUID()}`);

/**
 * The operator's store, on the real time, once its database answers (a database that is missing
 * or refuses: `DatabaseUnavailableError`, naming DATABASE_URL and the fix); `existing`: refuse,
 * naming it, a store that is not there.
 */
export async function openStore(config: Config, opts: { existing?: boolean } = {}): Promise<Store> {
  let store: Store;
  try {
    // Silent: a command answers in one line, and a database that does not answer becomes that
    // line (DatabaseUnavailableError), not log records around it.
    store = Store.open(config, {
      clock: systemClock,
      logger: createLogger('silent'),
      existing: opts.existing === true,
    });
  } catch (error) {
    if (!(error instanceof NoStoreError)) throw error;
    throw new UsageError(
      `${error.message} (DATA_DIR=${path.resolve(config.dataDir)}); run "healthspan-admin migrate" there to create one, or set DATA_DIR to the service's data directory`,
    );
  }
  try {
    await store.checkConnection();
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/**
 * Opens the store a command works on. Only `migrate`, `quickstart` and `serve` may create one
 * (`create`); every other command fails, naming the store it looked for, when there is none or
 * it is not migrated, and leaves nothing behind (an operator in the wrong directory once got a
 * new empty database with new secrets and an empty answer).
 */
export async function withStore<T>(
  fn: (store: SystemStore, scoped: Store) => Promise<T>,
  opts: { create?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  const store = await openStore(config, { existing: !opts.create });
  try {
    if (opts.create) await store.migrate();
    else {
      const ready = await store.isReady();
      if (!ready.ok) {
        const where = store.describe;
        throw new UsageError(
          ready.reason === 'migrations pending'
            ? `the store at ${where} is not migrated; run "healthspan-admin migrate" first`
            : `the store at ${where} does not answer (${ready.reason ?? 'unavailable'}); check DATABASE_URL`,
        );
      }
    }
    return await fn(store.system, store);
  } finally {
    await store.close();
  }
}
