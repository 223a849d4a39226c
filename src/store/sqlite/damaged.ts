/**
 * The embedded store's file is not a sound database (SQLite: `SQLITE_CORRUPT`, `SQLITE_NOTADB`):
 * most often a copy of a live database's files taken by hand, which is not a backup.
 */
export class StoreDamagedError extends Error {}

const DAMAGED = new Set([
  'SQLITE_CORRUPT',
  'SQLITE_NOTADB',
  'SQLITE_CORRUPT_INDEX',
  'SQLITE_CORRUPT_SEQUENCE',
]);

/** The one sentence for a damaged store, when `error` says the file is not a sound database. */
export function storeDamaged(error: unknown, dataDir: string): StoreDamagedError | undefined {
  if (error instanceof StoreDamagedError) return error;
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !DAMAGED.has(code)) return undefined;
  return new StoreDamagedError(
    `the store in DATA_DIR=${dataDir} is damaged (${(error as Error).message}): a copy of a live database's files is not a backup; restore one that "healthspan-admin backup create" made, with "healthspan-admin backup restore" (docs/backup.md)`,
  );
}
