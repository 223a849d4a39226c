/** The erasure ledger: README.md beside this file says what it promises and how. */
export { LedgerError, LedgerUnavailableError } from './errors.js';
export type { LedgerContents, LedgerEntry, LedgerFields, LedgerKind, LedgerPosition } from './ledger-file.js';
export { ErasureLedger, LedgerKeys } from './ledger-file.js';
export { LedgerBook, type LedgerPlace, ledgerFileOf } from './place.js';
export { type LedgerState, LedgerStateRepository } from './state.js';
