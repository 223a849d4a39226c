import path from 'node:path';
import { ErasureLedger, type LedgerKeys } from './ledger-file.js';

/** Where the ledgers of a deployment live: ERASURE_LEDGER, else beside the data (README.md). */
export interface LedgerPlace {
  /** ERASURE_LEDGER: one file, for the one database the settings name. */
  file: string | undefined;
  dataDir: string;
  /** The embedded store: its database is in `dataDir` too, one per folder. */
  embedded: boolean;
}

/**
 * The file a database's ledger is in: ERASURE_LEDGER when set; else, on the embedded store,
 * `DATA_DIR/erasure-ledger.jsonl` (one database per folder), and on PostgreSQL
 * `DATA_DIR/erasure-ledger-<storeId>.jsonl`, so that a new database never finds another's
 * ledger and a restored copy (the same `storeId`) finds its own.
 */
export function ledgerFileOf(place: LedgerPlace, storeId: string): string {
  if (place.file !== undefined) return place.file;
  return path.join(
    place.dataDir,
    place.embedded ? 'erasure-ledger.jsonl' : `erasure-ledger-${storeId}.jsonl`,
  );
}

/** The ledgers of one deployment, one per database (`storeId`), with the keys they share. */
export class LedgerBook {
  private readonly ledgers = new Map<string, ErasureLedger>();

  constructor(
    readonly place: LedgerPlace,
    private readonly keys: LedgerKeys,
  ) {}

  /** The ledger of the database `storeId`. */
  of(storeId: string): ErasureLedger {
    let ledger = this.ledgers.get(storeId);
    if (!ledger) {
      ledger = new ErasureLedger(ledgerFileOf(this.place, storeId), storeId, this.keys);
      this.ledgers.set(storeId, ledger);
    }
    return ledger;
  }

  /** The keyed hash an entry records for a subject of an account (the same in every ledger). */
  subjectHash(tenantId: string, partnerSubjectId: string): string {
    return this.keys.subjectHash(tenantId, partnerSubjectId);
  }
}
