import type {
  LedgerContents,
  LedgerEntry,
  LedgerState,
  LedgerStateRepository,
} from '../store/ledger/index.js';
import { LedgerError, ledgerFileOf } from '../store/ledger/index.js';

/**
 * Where a database stands against its erasure ledger: `current` (every entry applied), `behind`
 * (entries it misses: it was restored from a backup), or `broken` (the ledger is missing, damaged
 * or another database's), with the sentence an operator reads. `replaySince`: a replay moved the
 * position and its erasures have not all completed (it was stopped); the database is not served
 * until one finishes.
 */
export type LedgerVerdict =
  | { kind: 'current'; entries: LedgerEntry[]; replaySince: string | undefined }
  | { kind: 'behind'; entries: LedgerEntry[]; missing: LedgerEntry[]; replaySince: string | undefined }
  | { kind: 'broken'; message: string; foreign: boolean };

const OVERRIDE =
  'put the ledger back where ERASURE_LEDGER points, or, if it is lost, accept that with "healthspan-admin erasures override-ledger --confirm" (docs/backup.md)';

/**
 * Reads the ledger and the database's position in it, and compares them. `replayState`: the
 * database has the replay's column (`0026`); a start that has not migrated yet reads without it.
 */
export async function compareLedger(
  ledgerState: LedgerStateRepository,
  opts: { replayState?: boolean } = {},
): Promise<LedgerVerdict> {
  const state = await ledgerState.state();
  const ledger = ledgerState.book().of(state.storeId);
  let contents: LedgerContents;
  try {
    contents = await ledger.read();
  } catch (error) {
    if (error instanceof LedgerError)
      return { kind: 'broken', message: `${error.message}; ${OVERRIDE}`, foreign: false };
    throw error;
  }
  const replaySince = opts.replayState === false ? undefined : await ledgerState.replaySince();
  return judge(state, contents, {
    file: ledger.file,
    replaySince,
    legacyHint: legacyHint(ledgerState, state),
  });
}

/** The verdict on a database's state and its ledger's contents. */
function judge(
  state: LedgerState,
  contents: LedgerContents,
  o: { file: string; replaySince: string | undefined; legacyHint: string },
): LedgerVerdict {
  const { entries } = contents;
  if (contents.foreignStore !== undefined) {
    const whose = `the erasure ledger ${o.file} belongs to another database (store ${contents.foreignStore})`;
    return {
      kind: 'broken',
      foreign: true,
      message:
        state.seq === 0
          ? `${whose}, and this database (store ${state.storeId}) is new: give it a ledger of its own by setting ERASURE_LEDGER to a new path (docs/backup.md)`
          : `${whose}, not this one (store ${state.storeId}): set ERASURE_LEDGER to this database's own ledger (docs/backup.md)`,
    };
  }
  if (!contents.exists && state.seq > 0) {
    return {
      kind: 'broken',
      foreign: false,
      message: `the erasure ledger ${o.file} is missing, but this database applied ${state.seq} of its entries; ${o.legacyHint}${OVERRIDE}`,
    };
  }
  if (state.seq > 0) {
    const applied = entries.find((e) => e.seq === state.seq);
    if (!applied || applied.mac !== state.head) {
      return {
        kind: 'broken',
        foreign: false,
        message: `the erasure ledger ${o.file} does not hold this database's last erasure entry (${state.seq}): it was cut, or it is another database's ledger; ${OVERRIDE}`,
      };
    }
  }
  const missing = entries.filter((e) => e.seq > state.seq);
  return missing.length > 0
    ? { kind: 'behind', entries, missing, replaySince: o.replaySince }
    : { kind: 'current', entries, replaySince: o.replaySince };
}

/**
 * On PostgreSQL without ERASURE_LEDGER, ledgers were `DATA_DIR/erasure-ledger.jsonl` before they
 * were named by database: where that file is, the sentence says to point at it.
 */
function legacyHint(ledgerState: LedgerStateRepository, state: LedgerState): string {
  const { place } = ledgerState.book();
  if (place.embedded || place.file !== undefined) return '';
  const legacy = ledgerFileOf({ ...place, embedded: true }, state.storeId);
  return `if ${legacy} is its ledger (the default before ledgers were named by database), set ERASURE_LEDGER to it; else `;
}

/** The sentence a start (or `subjects erase`) that refuses a database behind its ledger, or mid-replay, says. */
export function refusalOf(verdict: Exclude<LedgerVerdict, { kind: 'broken' }>): string {
  if (verdict.kind === 'behind') {
    const missing = verdict.missing.length;
    return `this database misses ${missing} erasure ledger ${missing === 1 ? 'entry' : 'entries'} recorded since it was backed up; run "healthspan-admin erasures replay" before starting the service, or set ERASURE_REPLAY_ON_START=true (docs/backup.md)`;
  }
  return `a replay of the erasure ledger began on this database at ${verdict.replaySince} and did not finish, so erasures it requested may not have completed; run "healthspan-admin erasures replay" again before starting the service, or set ERASURE_REPLAY_ON_START=true (docs/backup.md)`;
}

/** Whether the database may be served as it stands: every entry applied and no replay unfinished. */
export function settled(verdict: LedgerVerdict): boolean {
  return verdict.kind === 'current' && verdict.replaySince === undefined;
}
