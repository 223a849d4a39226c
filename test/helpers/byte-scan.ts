import fs from 'node:fs';
import path from 'node:path';

/**
 * The embedded store's files in a data directory: the database, its WAL and shared memory, then
 * every file under `artifacts/` (report bytes apart from it, `EMBEDDED_ARTIFACTS=files`).
 */
export function storeFiles(dataDir: string): string[] {
  const sqliteFiles = (base: string) => [base, `${base}-wal`, `${base}-shm`];
  const reports = path.join(dataDir, 'artifacts');
  const reportFiles = fs.existsSync(reports)
    ? fs
        .readdirSync(reports, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.join(e.parentPath, e.name))
    : [];
  return [...sqliteFiles(path.join(dataDir, 'healthspan.sqlite')), ...reportFiles].filter((f) =>
    fs.existsSync(f),
  );
}

/** `needle in file` for every needle found in the raw bytes of each file (none: nothing readable left). */
export function findInFiles(files: readonly string[], needles: readonly string[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const bytes = fs.readFileSync(file);
    for (const needle of needles) {
      if (bytes.includes(Buffer.from(needle, 'utf8'))) found.push(`${needle} in ${path.basename(file)}`);
    }
  }
  return found;
}
