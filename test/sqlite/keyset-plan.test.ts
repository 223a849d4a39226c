import { CompiledQuery, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Driver } from '../../src/store/driver.js';
import type { Store } from '../../src/store/index.js';
import { keysetPage } from '../../src/store/keyset.js';
import { type AuditQuery, AuditRepository } from '../../src/store/repositories/audit.js';
import { openTestStore } from '../helpers/store.js';

/**
 * The keyset page every list continues with (`store/keyset.ts`), as SQLite plans it for the audit
 * trail and the erasures: a range on the list's `(tenant_id, time, id)` index from the cursor's
 * position, not a walk of the account's whole range (the submission list's plans:
 * submission-list-plan.test.ts).
 */
let store: Store;
beforeAll(async () => {
  store = await openTestStore();
});
afterAll(async () => {
  await store?.close();
});

describe('the keyset page on SQLite', () => {
  const tenantId = '0190a7e0-0000-7000-8000-000000000001';
  const after = { at: '2026-11-21T12:00:00.000Z', id: '0190a7e0-0000-7000-8000-000000000000' };

  async function planOf(run: (db: Store['driver']['db']) => Promise<unknown>): Promise<string[]> {
    const statements: CompiledQuery[] = [];
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        statements.push(store.driver.db.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    await run(store.driver.db.withPlugin(capture));
    const page = statements.find((s) => s.sql.startsWith('select'));
    expect(page?.sql).toMatch(/< \(\?, \?\) order by .* desc, .* desc limit \?$/);
    const explained = await store.driver.db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${page!.sql}`, [...page!.parameters]),
    );
    return explained.rows.map((r) => r.detail);
  }

  it('continues the audit trail on a range of audit_events_tenant_idx', async () => {
    const plan = await planOf((db) =>
      keysetPage(
        db.selectFrom('audit_events').selectAll().where('tenant_id', '=', tenantId),
        { at: 'occurred_at', id: 'id' },
        { after, limit: 50 },
      ),
    );
    expect(plan).toEqual([
      'SEARCH audit_events USING INDEX audit_events_tenant_idx (tenant_id=? AND (occurred_at,id)<(?,?))',
    ]);
  });

  it('searches the audit trail by reference on audit_events_resource_idx, not the whole range', async () => {
    const resourceIds = ['0190a7e0-0000-7000-8000-00000000000a', '0190a7e0-0000-7000-8000-00000000000b'];
    const queries: AuditQuery[] = [
      { after, limit: 50, resourceIds },
      {
        after,
        limit: 50,
        resourceIds,
        since: new Date('2026-11-01T00:00:00Z'),
        action: 'submission.created',
      },
    ];
    for (const query of queries) {
      const plan = await planOf((db) =>
        new AuditRepository(Object.create(store.driver, { db: { value: db } }) as Driver).list(
          tenantId,
          query,
        ),
      );
      expect(plan).toEqual([
        'SEARCH audit_events USING INDEX sqlite_autoindex_audit_events_1 (id=?)',
        'LIST SUBQUERY 1',
        'SEARCH audit_events USING INDEX audit_events_resource_idx (tenant_id=? AND resource_id=?)',
        'USE TEMP B-TREE FOR ORDER BY',
      ]);
    }
  });

  it('continues the erasures on a range of erasures_requested_idx', async () => {
    const plan = await planOf((db) =>
      keysetPage(
        db.selectFrom('erasures').selectAll().where('tenant_id', '=', tenantId),
        { at: 'requested_at', id: 'id' },
        { after, limit: 50 },
      ),
    );
    expect(plan).toEqual([
      'SEARCH erasures USING INDEX erasures_requested_idx (tenant_id=? AND (requested_at,id)<(?,?))',
    ]);
  });
});
