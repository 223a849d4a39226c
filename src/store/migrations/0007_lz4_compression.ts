import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/** The columns that hold documents big enough to be compressed out of line (TOAST). */
const DOCUMENT_COLUMNS = [
  ['submissions', 'original_body'],
  ['submissions', 'normalised_body'],
  ['results', 'bundle'],
  ['artifact_contents', 'body'],
  ['webhook_events', 'body'],
] as const;

/**
 * PostgreSQL: compress stored documents with LZ4 instead of the default pglz, where the server
 * was built with LZ4 (Debian's and the official images are). With reports on, pglz was the
 * database's largest single cost: it ran over every 76 kB PDF (already deflated, so stored
 * uncompressed in the end) and every HTML and JSON report. LZ4 gives up on the PDF quickly and
 * compresses the rest several times faster, at a similar ratio. Only values written from now on
 * change; existing ones stay readable either way. SQLite does not compress values.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  if (dialect !== 'postgres') return;
  const { rows } = await sql<{ lz4: boolean }>`
    select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`.execute(
    db,
  );
  if (!rows[0]?.lz4) return;
  for (const [table, column] of DOCUMENT_COLUMNS) {
    await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} set compression lz4`.execute(
      db,
    );
  }
}
