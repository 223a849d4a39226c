import type { Kysely } from 'kysely';
import { emit } from '../../telemetry/events.js';
import type { Database } from '../database.js';
import type { ErasureLedger, LedgerEntry, LedgerFields, LedgerPosition } from '../erasure-ledger.js';
import type { Executor } from '../prepared.js';

/** The database's identity and where it stands in its erasure ledger. */
export interface LedgerState extends LedgerPosition {
  storeId: string;
}

/**
 * The database's side of the erasure ledger (`0021_erasure_ledger`): one row holding the last
 * ledger entry the database applied. Writing an entry holds that row from the ledger append to
 * the commit, so appends from every process and connection are serialised by the database
 * itself (SQLite's one writer; PostgreSQL's row lock), and the ledger's order is the commit
 * order.
 */
export class LedgerStateRepository {
  constructor(
    private readonly db: Kysely<Database>,
    readonly ledger: () => ErasureLedger,
  ) {}

  async state(db: Executor = this.db): Promise<LedgerState> {
    const row = await db
      .selectFrom('erasure_ledger_state')
      .select(['store_id', 'applied_seq', 'head'])
      .where('id', '=', 1)
      .executeTakeFirstOrThrow();
    return { storeId: row.store_id, seq: Number(row.applied_seq), head: row.head };
  }

  /**
   * Appends an entry and records it as applied, in `trx`. Call it last in a transaction: the row
   * it holds until the commit is what other writers of the ledger wait for.
   */
  async append(trx: Executor, fields: LedgerFields): Promise<LedgerEntry> {
    const held = await trx
      .updateTable('erasure_ledger_state')
      .set({ updated_at: fields.at })
      .where('id', '=', 1)
      .returning(['applied_seq', 'head'])
      .executeTakeFirstOrThrow();
    const entry = await this.ledger().append(fields, { seq: Number(held.applied_seq), head: held.head });
    await this.advance(trx, entry);
    emit('ledger.appended', { kind: entry.kind });
    return entry;
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
}
