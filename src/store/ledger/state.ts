import type { Kysely } from 'kysely';
import { emit } from '../../telemetry/events.js';
import { iso } from '../codec.js';
import type { Database } from '../database.js';
import type { Executor } from '../prepared.js';
import { LedgerUnavailableError } from './errors.js';
import type { ErasureLedger, LedgerEntry, LedgerFields, LedgerPosition } from './ledger-file.js';
import type { LedgerBook } from './place.js';

/** The database's identity and where it stands in its erasure ledger. */
export interface LedgerState extends LedgerPosition {
  storeId: string;
}

/**
 * The database's side of the erasure ledger (`0021_erasure_ledger`, `0026`): one row holding the
 * database's identity, the last ledger entry it applied, and whether a replay of the ledger is
 * under way. Writing an entry holds that row from the ledger append to the commit, so appends
 * from every process and connection are serialised by the database itself (SQLite's one writer;
 * PostgreSQL's row lock), and the ledger's order is the commit order.
 */
export class LedgerStateRepository {
  constructor(
    private readonly db: Kysely<Database>,
    readonly book: () => LedgerBook,
  ) {}

  async state(db: Executor = this.db): Promise<LedgerState> {
    const row = await db
      .selectFrom('erasure_ledger_state')
      .select(['store_id', 'applied_seq', 'head'])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    return { storeId: row.store_id, seq: Number(row.applied_seq), head: row.head };
  }

  /** This database's ledger (README.md: the file follows the database's identity). */
  async ledger(db: Executor = this.db): Promise<ErasureLedger> {
    return this.book().of((await this.state(db)).storeId);
  }

  /**
   * Appends an entry and records it as applied, in `trx`. Call it last in a transaction: the row
   * it holds until the commit is what other writers of the ledger wait for. Throws
   * `LedgerUnavailableError` (nothing appended) when the ledger cannot take it.
   */
  async append(trx: Executor, fields: LedgerFields): Promise<LedgerEntry> {
    const [entry] = await this.appendAll(trx, [fields]);
    if (!entry) throw new Error('an append wrote no entry');
    return entry;
  }

  /** `append` for entries that belong together: one write, whole or not at all. */
  async appendAll(trx: Executor, all: LedgerFields[]): Promise<LedgerEntry[]> {
    const held = await trx
      .updateTable('erasure_ledger_state')
      .set({ updated_at: all[0]?.at ?? new Date(0).toISOString() })
      .where('id', '=', 1)
      .returning(['store_id', 'applied_seq', 'head'])
      .executeTakeFirstOrThrow();
    let entries: LedgerEntry[];
    try {
      entries = await this.book()
        .of(held.store_id)
        .appendAll(all, { seq: Number(held.applied_seq), head: held.head });
    } catch (error) {
      if (error instanceof LedgerUnavailableError) emit('ledger.refused', { reason: error.reason });
      throw error;
    }
    const last = entries.at(-1);
    if (last) await this.advance(trx, last);
    for (const entry of entries) emit('ledger.appended', { kind: entry.kind });
    return entries;
  }

  /** Holds the ledger row until `trx` ends: no other process appends meanwhile. */
  async hold(trx: Executor, at: string): Promise<void> {
    await trx.updateTable('erasure_ledger_state').set({ updated_at: at }).where('id', '=', 1).execute();
  }

  /** Makes `entry` the database's position whatever it was (the operator's override). */
  async reset(trx: Executor, entry: LedgerEntry): Promise<void> {
    await trx
      .updateTable('erasure_ledger_state')
      .set({ applied_seq: entry.seq, head: entry.mac, updated_at: entry.at })
      .where('id', '=', 1)
      .execute();
    emit('ledger.appended', { kind: entry.kind });
  }

  /**
   * Records `entry` as applied unless the database is past it already; true when it moved. A
   * commit unit's second attempt settles the entry its first attempt appended this way, and a
   * replay takes each entry once, whichever process gets there first.
   */
  async advance(trx: Executor, entry: LedgerEntry): Promise<boolean> {
    const moved = await trx
      .updateTable('erasure_ledger_state')
      .set({ applied_seq: entry.seq, head: entry.mac, updated_at: entry.at })
      .where('id', '=', 1)
      .where('applied_seq', '<', entry.seq)
      .executeTakeFirst();
    return Number(moved.numUpdatedRows) > 0;
  }

  /** When a replay that has not finished began (`0026`); undefined when none is under way. */
  async replaySince(db: Executor = this.db): Promise<string | undefined> {
    const row = await db
      .selectFrom('erasure_ledger_state')
      .select('replay_since')
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    return row.replay_since === null ? undefined : iso(row.replay_since);
  }

  /** A replay is under way from `at` (kept when one was already). */
  async replayStarted(trx: Executor, at: Date): Promise<void> {
    await trx
      .updateTable('erasure_ledger_state')
      .set({ replay_since: at.toISOString() })
      .where('id', '=', 1)
      .where('replay_since', 'is', null)
      .execute();
  }

  /** The replay finished: every erasure it waited for completed. */
  async replayFinished(trx: Executor): Promise<void> {
    await trx.updateTable('erasure_ledger_state').set({ replay_since: null }).where('id', '=', 1).execute();
  }
}
