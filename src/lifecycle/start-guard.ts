import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { type Config, ConfigError } from '../config.js';
import { ledgerBookFor, type Store, type StoreConfig } from '../store/index.js';
import { LedgerError } from '../store/ledger/index.js';
import { pendingMigrations } from '../store/migrate.js';
import { withReadOnlyStore } from '../store/read-only.js';
import { compareLedger, refusalOf, settled } from './ledger-check.js';
import { type ReplayReport, replayErasures } from './replay.js';

/**
 * Before a process opens its store for writing: the database, read without writing, must hold
 * every erasure its ledger recorded, with no replay of the ledger left unfinished. A database
 * restored from a backup misses those made since, and one whose replay was stopped may still hold
 * subjects it was erasing: the start refuses either, in one sentence, until `erasures replay` has
 * run (or goes on to replay with ERASURE_REPLAY_ON_START, `guardLedger`). A missing, damaged or
 * foreign ledger always refuses. Nothing is written to a database a start refuses. True when the
 * database was found settled, so the start need not compare them again once it has migrated.
 */
export async function checkLedgerBeforeOpening(
  config: Pick<Config, 'erasureReplayOnStart'> & StoreConfig,
  logger: Logger,
): Promise<boolean> {
  const checked = await withReadOnlyStore(config, logger, async (view) => {
    const verdict = await compareLedger(view.ledger, {
      replayState: view.migrations.has('0026_erasure_replay_state'),
    });
    if (verdict.kind === 'broken') throw new ConfigError(verdict.message);
    if (!settled(verdict) && !config.erasureReplayOnStart) throw new ConfigError(refusalOf(verdict));
    return settled(verdict);
  });
  if (checked === undefined) await refuseAnothersLedger(config);
  return checked === true;
}

/**
 * A database that is not there yet (or has no ledger state) must not take over a ledger that
 * holds entries: they are another database's (the one that was in DATA_DIR before, or the one
 * ERASURE_LEDGER was set for), and this one would append after them.
 */
async function refuseAnothersLedger(config: StoreConfig): Promise<void> {
  const book = ledgerBookFor(config);
  if (!book.place.embedded && book.place.file === undefined) return;
  const ledger = book.of('');
  const { entries, foreignStore } = await ledger.read().catch((error: unknown) => {
    if (error instanceof LedgerError) throw new ConfigError(error.message);
    throw error;
  });
  if (foreignStore === undefined && entries.length === 0) return;
  const owner = foreignStore ?? entries.at(-1)?.store ?? 'not named in its entries';
  throw new ConfigError(
    `the erasure ledger ${ledger.file} holds the entries of another database (store ${owner}), and this database is new: give it a ledger of its own by setting ERASURE_LEDGER to a new path, or, if that database is gone for good and no backup of it will be restored, move the old ledger away (docs/backup.md)`,
  );
}

/**
 * Once migrated, before a process serves, where `checkLedgerBeforeOpening` did not find the
 * database settled: what it let through for ERASURE_REPLAY_ON_START, replayed here (logged, and
 * audited as the system's); and the same checks on a database that had no ledger state before
 * this start migrated it. A database whose migrations
 * are pending, or that does not answer, is left to the readiness check (`MIGRATE_ON_START=false`).
 */
export async function guardLedger(
  config: Pick<Config, 'erasureReplayOnStart' | 'jobLeaseSeconds'>,
  store: Store,
  deps: { clock: Clock; logger: Logger },
): Promise<ReplayReport | undefined> {
  let pending: string[];
  try {
    pending = await pendingMigrations(store.driver);
  } catch (error) {
    // The database does not answer: the readiness check says so; nothing can be served anyway.
    deps.logger.warn(
      { err: error },
      'the erasure ledger was not compared with the database: it does not answer',
    );
    return undefined;
  }
  if (pending.length > 0) return undefined;
  const verdict = await compareLedger(store.system.ledger);
  if (verdict.kind === 'broken') throw new ConfigError(verdict.message);
  if (settled(verdict)) return undefined;
  if (!config.erasureReplayOnStart) throw new ConfigError(refusalOf(verdict));
  deps.logger.warn(
    { missing: verdict.kind === 'behind' ? verdict.missing.length : 0, replaySince: verdict.replaySince },
    'this database misses erasure ledger entries (restored from a backup) or a replay did not finish: replaying before serving (ERASURE_REPLAY_ON_START)',
  );
  return replayErasures(store, {
    clock: deps.clock,
    logger: deps.logger,
    origin: { actor: { type: 'system' }, requestId: 'erasure-replay-on-start' },
    leaseMs: config.jobLeaseSeconds * 1000,
  });
}
