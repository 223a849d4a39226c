import type { Kysely } from 'kysely';
import type { DriverName } from '../driver.js';

/**
 * The partner console (issue 31): one-time sign-in links and the sessions opened with them. Only
 * hashes of the link tokens and session cookies are stored, so a copy of the database signs no
 * one in. A session is a row (revocable, ended by sign-out, its key's revocation or its account's
 * deactivation); every sign-in makes a new one. `key_id` is the API key that asked for the link,
 * null for a link an operator made with the CLI.
 */
export async function up(db: Kysely<unknown>, dialect: DriverName): Promise<void> {
  const t =
    dialect === 'postgres'
      ? ({ ts: 'timestamptz', uuid: 'uuid' } as const)
      : ({ ts: 'text', uuid: 'text' } as const);

  await db.schema
    .createTable('console_links')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('tenant_id', t.uuid, (c) => c.notNull().references('tenants.id'))
    .addColumn('key_id', t.uuid, (c) => c.references('api_keys.id'))
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('ttl_seconds', 'integer', (c) => c.notNull())
    .addColumn('created_at', t.ts, (c) => c.notNull())
    // The link itself is usable once, until this time (5 minutes after it was made).
    .addColumn('expires_at', t.ts, (c) => c.notNull())
    .addColumn('used_at', t.ts)
    .execute();

  await db.schema
    .createTable('console_sessions')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('link_id', t.uuid, (c) => c.notNull().references('console_links.id'))
    // The account of the key that made the link (a sandbox account for a test key).
    .addColumn('tenant_id', t.uuid, (c) => c.notNull().references('tenants.id'))
    .addColumn('key_id', t.uuid, (c) => c.references('api_keys.id'))
    .addColumn('scope', 'text', (c) => c.notNull())
    // The mode the console shows now (the live/test switch).
    .addColumn('mode', 'text', (c) => c.notNull())
    .addColumn('created_at', t.ts, (c) => c.notNull())
    .addColumn('last_seen_at', t.ts, (c) => c.notNull())
    .addColumn('expires_at', t.ts, (c) => c.notNull())
    .addColumn('ended_at', t.ts)
    .addColumn('ended_reason', 'text')
    .execute();
  await db.schema.createIndex('console_sessions_key_idx').on('console_sessions').column('key_id').execute();
  await db.schema.createIndex('console_links_key_idx').on('console_links').column('key_id').execute();
}
