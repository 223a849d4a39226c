import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { type Config, ConfigError } from '../config.js';
import type { Store } from '../store/index.js';
import { pendingMigrations } from '../store/migrate.js';
import { behindMessage, compareLedger } from './ledger-check.js';
import { type ReplayReport, replayErasures } from './replay.js';

/**
 * Before a process serves: its database must hold every erasure its ledger recorded. A database
 * restored from a backup misses those made since; the start refuses it, in one sentence, until
 * `erasures replay` has run, or replays itself with ERASURE_REPLAY_ON_START (logged, and audited
 * as the system's). A missing, damaged or foreign ledger always refuses. A database whose
 * migrations are pending, or that does not answer, is left to the readiness check
 * (`MIGRATE_ON_START=false`): the ledger's table may not be there yet.
 */
export async function guardLedger(
  config: Pick<Config, 'erasureReplayOnStart'>,
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
  const verdict = await compareLedger(store.system);
  if (verdict.kind === 'current') return undefined;
  if (verdict.kind === 'broken') throw new ConfigError(verdict.message);
  if (!config.erasureReplayOnStart) throw new ConfigError(behindMessage(verdict.missing.length));
  deps.logger.warn(
    { missing: verdict.missing.length },
    'this database misses erasure ledger entries (restored from a backup): replaying them before serving (ERASURE_REPLAY_ON_START)',
  );
  return replayErasures(store, {
    clock: deps.clock,
    logger: deps.logger,
    origin: { actor: { type: 'system' }, requestId: 'erasure-replay-on-start' },
  });
}
