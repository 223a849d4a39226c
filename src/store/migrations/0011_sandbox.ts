import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * Test mode (docs/sandbox.md). An account's sandbox is an account of its own, linked to the
 * live one, with one sandbox partner credential per live credential: test keys, submissions,
 * results, artifacts, events and audit events belong to the sandbox account, so the tenant
 * scoping every query already carries keeps the two modes apart by construction.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const uuid = dialect === 'postgres' ? 'uuid' : 'text';
  await db.schema
    .alterTable('tenants')
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('live'))
    .execute();
  await db.schema
    .alterTable('tenants')
    .addColumn('live_tenant_id', uuid, (c) => c.references('tenants.id'))
    .execute();
  await db.schema
    .alterTable('partners')
    .addColumn('live_partner_id', uuid, (c) => c.references('partners.id'))
    .execute();
  // One sandbox per account and per credential.
  await db.schema
    .createIndex('tenants_sandbox_idx')
    .on('tenants')
    .column('live_tenant_id')
    .unique()
    .execute();
  await db.schema
    .createIndex('partners_sandbox_idx')
    .on('partners')
    .column('live_partner_id')
    .unique()
    .execute();
}
