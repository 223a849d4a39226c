import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/store/database.js';
import { isPacked, type StoredJson } from '../../src/store/packing/packed-json.js';

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

/**
 * A piece of a stored value to look for: text, or the bytes of a packed document
 * (`packedDocuments`), whose words no text search can see.
 */
export type Needle = string | { label: string; bytes: Buffer };

/** `needle in file` for every needle found in the raw bytes of each file (none: nothing readable left). */
export function findInFiles(files: readonly string[], needles: readonly Needle[]): string[] {
  const found: string[] = [];
  for (const file of files) {
    const bytes = fs.readFileSync(file);
    for (const needle of needles) {
      const [label, sought] =
        typeof needle === 'string' ? [needle, Buffer.from(needle, 'utf8')] : [needle.label, needle.bytes];
      if (bytes.includes(sought)) found.push(`${label} in ${path.basename(file)}`);
    }
  }
  return found;
}

/**
 * The packed documents stored for `submissionIds` (their bodies and result bundles), whole: a
 * page, a log frame or a copy that still holds one of them holds its bytes (each fits in a page).
 * A bundle holds no ids, so two subjects with the same health data have the same one: the tests
 * give each subject data of its own.
 */
export async function packedDocuments(
  db: Kysely<Database>,
  submissionIds: readonly string[],
): Promise<Needle[]> {
  const submissions = await db
    .selectFrom('submissions')
    .select(['id', 'original_body', 'normalised_body'])
    .where('id', 'in', [...submissionIds])
    .execute();
  const results = await db
    .selectFrom('results')
    .select(['submission_id', 'bundle'])
    .where('submission_id', 'in', [...submissionIds])
    .execute();
  const documents = [
    ...submissions.flatMap((r) => [
      [`original body of ${r.id}`, r.original_body],
      [`normalised body of ${r.id}`, r.normalised_body],
    ]),
    ...results.map((r) => [`result bundle of ${r.submission_id}`, r.bundle]),
  ] as Array<[string, StoredJson]>;
  return documents.map(([label, value]) => {
    if (!isPacked(value)) throw new Error(`${label} is not packed`);
    return { label, bytes: Buffer.from(value) };
  });
}

/** A weight of the subject's own (70.0 to 99.9 kg), so its result bundles' bytes are its own too. */
export function ownWeightKg(subject: string): number {
  return 70 + (createHash('sha256').update(subject).digest().readUInt16BE(0) % 300) / 10;
}
