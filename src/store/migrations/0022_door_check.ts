import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * What the door's checks found, stored with the submission in the commit that answers `202`
 * (issue 40): `door_checks` is the fingerprint of the checks that ran (`ingest/checks-identity.ts`),
 * `door_outcome` what they said (`passed`: the door stores nothing else). The check step skips
 * its own run of the checks when its fingerprint is the same. Rows from before stay null and are
 * checked in full (docs/pipeline.md); nullable columns, so no table rewrite on either store.
 */
export async function up(db: Kysely<unknown>, _dialect: DriverName): Promise<void> {
  await db.schema.alterTable('submissions').addColumn('door_checks', 'text').execute();
  await db.schema.alterTable('submissions').addColumn('door_outcome', 'text').execute();
}
