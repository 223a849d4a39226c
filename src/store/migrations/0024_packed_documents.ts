import { type Kysely, sql } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * Database growth per submission (issue 41, docs/performance-journal.md 2026-11-29).
 *
 * On PostgreSQL a submission's two bodies and its result bundle are stored packed: deflated with
 * a preset dictionary of documents of their kind (`store/packing/`), a few hundred bytes instead
 * of 1.7, 2.7 and 12 kB of text. The service packs and unpacks them, so the `json` columns become
 * `bytea` (each row's text kept as its UTF-8 bytes, which read back as plain JSON). SQLite keeps
 * the text (`Driver.storedDocument`); its columns would hold blobs beside text as they are.
 *
 * PostgreSQL: the packed bodies stay in the row. `0023` moved the bodies out of line so a status
 * change would not copy 2.5 kB; packed, they are a few hundred bytes, and moving them out would
 * cost a TOAST row and index entry each.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`alter table submissions
    alter column original_body type bytea using convert_to(original_body::text, 'UTF8'),
    alter column normalised_body type bytea using convert_to(normalised_body::text, 'UTF8')`.execute(db);
  await sql`alter table submissions reset (toast_tuple_target)`.execute(db);
  await sql`alter table results alter column bundle type bytea using convert_to(bundle::text, 'UTF8')`.execute(
    db,
  );
}
