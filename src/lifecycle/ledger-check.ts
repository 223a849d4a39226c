import { type LedgerEntry, LedgerError } from '../store/erasure-ledger.js';
import type { SystemStore } from '../store/index.js';

/**
 * Where a database stands against its erasure ledger: `current` (every entry applied), `behind`
 * (entries it misses: it was restored from a backup), or `broken` (the ledger is missing, damaged
 * or another database's), with the sentence an operator reads.
 */
export type LedgerVerdict =
  | { kind: 'current'; entries: number }
  | { kind: 'behind'; entries: number; missing: LedgerEntry[] }
  | { kind: 'broken'; message: string };

const OVERRIDE =
  'put the ledger back where ERASURE_LEDGER points, or, if it is lost, accept that with "healthspan-admin erasures override-ledger --confirm" (docs/backup.md)';

/** Reads the ledger and the database's position in it, and compares them. */
export async function compareLedger(system: Pick<SystemStore, 'ledger'>): Promise<LedgerVerdict> {
  const state = await system.ledger.state();
  const ledger = system.ledger.ledger();
  let contents: Awaited<ReturnType<typeof ledger.read>>;
  try {
    contents = await ledger.read();
  } catch (error) {
    if (error instanceof LedgerError) return { kind: 'broken', message: `${error.message}; ${OVERRIDE}` };
    throw error;
  }
  const { entries } = contents;
  if (!contents.exists && state.seq > 0) {
    return {
      kind: 'broken',
      message: `the erasure ledger ${ledger.file} is missing, but this database applied ${state.seq} of its entries; ${OVERRIDE}`,
    };
  }
  if (state.seq > 0) {
    const applied = entries.find((e) => e.seq === state.seq);
    if (!applied || applied.mac !== state.head) {
      return {
        kind: 'broken',
        message: `the erasure ledger ${ledger.file} does not hold this database's last erasure entry (${state.seq}): it was cut, or it is another database's ledger; ${OVERRIDE}`,
      };
    }
  }
  const missing = entries.filter((e) => e.seq > state.seq);
  return missing.length > 0
    ? { kind: 'behind', entries: entries.length, missing }
    : { kind: 'current', entries: entries.length };
}

/** The sentence a start that refuses a database behind its ledger says. */
export function behindMessage(missing: number): string {
  return `this database misses ${missing} erasure ledger ${missing === 1 ? 'entry' : 'entries'} recorded since it was backed up; run "healthspan-admin erasures replay" before starting the service, or set ERASURE_REPLAY_ON_START=true (docs/backup.md)`;
}
