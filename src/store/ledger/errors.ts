/**
 * The ledger is missing, damaged, or not this database's: the service refuses to start and the
 * operator commands refuse, with this sentence, until the operator acts (docs/backup.md).
 */
export class LedgerError extends Error {}

/**
 * The ledger cannot take an entry just now (its file system is full or read-only, its file or
 * folder went away, the path is a directory): the erasure is refused, nothing of it is recorded,
 * and the partner is told to try again (`503` with `Retry-After`). The message is the operator's
 * sentence, naming the file and the fix; it is logged, never shown to a partner.
 */
export class LedgerUnavailableError extends Error {
  /** How long a refused request is told to wait before trying again. */
  static readonly retryAfterSeconds = 30;

  constructor(
    message: string,
    /** A bounded word for metrics: the file system's code, or `check` for a ledger that is not this database's. */
    readonly reason = 'check',
  ) {
    super(message);
  }
}

export const REFUSED = 'erasures are refused until then, and nothing of this one was recorded';

/** The operator's sentence for an error the file system gave while the ledger was written. */
export function unwritable(file: string, error: unknown): LedgerUnavailableError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = (() => {
    switch (code) {
      case 'ENOSPC':
      case 'EDQUOT':
        return 'its file system is full: free space there';
      case 'EROFS':
        return 'its file system is read-only: mount it read-write';
      case 'EACCES':
      case 'EPERM':
        return "the service's user may not write it: give that user write access to the file and its folder";
      case 'EISDIR':
        return 'the path is a directory now, not the ledger file: put the ledger file back there';
      case 'ENOENT':
      case 'ENOTDIR':
        return 'the file or its folder was removed while the service ran: put the ledger back where ERASURE_LEDGER points, from where it went or from a copy';
      default:
        return `the file system said ${code ?? (error instanceof Error ? error.message : String(error))}: make it writable again`;
    }
  })();
  const reason = code !== undefined && /^E[A-Z]+$/.test(code) ? code : 'EIO';
  return new LedgerUnavailableError(
    `the erasure ledger ${file} cannot take an entry (${why}); ${REFUSED}`,
    reason,
  );
}

/** The start's sentence when the ledger's path cannot be read as the ledger file. */
export function unreadable(file: string, error: unknown): LedgerError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'EISDIR':
      return new LedgerError(
        `the erasure ledger ${file} is a directory, not the ledger file: set ERASURE_LEDGER to the ledger file itself, or put the file back there (docs/backup.md)`,
      );
    case 'EACCES':
    case 'EPERM':
      return new LedgerError(
        `the erasure ledger ${file} may not be read by the service's user: give that user read and write access to it and its folder (docs/backup.md)`,
      );
    case 'ENOTDIR':
      return new LedgerError(
        `the erasure ledger's path ${file} runs through a file, not a folder: set ERASURE_LEDGER to a path in a folder (docs/backup.md)`,
      );
    default:
      return new LedgerError(
        `the erasure ledger ${file} cannot be read (${code ?? (error instanceof Error ? error.message : String(error))}): check the file and its file system (docs/backup.md)`,
      );
  }
}

/** A ledger whose entries name another database than the one reading it. */
export function foreignLedger(file: string, theirs: string, ours: string): string {
  return `the erasure ledger ${file} belongs to another database (store ${theirs}), not this one (store ${ours}): set ERASURE_LEDGER to this database's own ledger (docs/backup.md)`;
}
