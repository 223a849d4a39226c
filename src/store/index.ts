import type { Config } from '../config.js';
import { connectStore, type StoreConnection } from './connect.js';
import { migrateToLatest, pendingMigrations } from './migrate.js';
import { AccountsRepository } from './repositories/accounts.js';
import { IngestWriter } from './repositories/ingest.js';
import { TenantSubmissions } from './repositories/submissions.js';
import { SqliteIngestBackend } from './sqlite/ingest-backend.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Everything the service keeps, behind one object: the only thing that knows the dialect. */
export class Store {
  readonly accounts: AccountsRepository;
  readonly ingest: IngestWriter;

  constructor(
    readonly connection: StoreConnection,
    policy: { slaSeconds: number; maxAttempts: number },
  ) {
    this.accounts = new AccountsRepository(connection.db, connection.dialect);
    if (!connection.sqlite) throw new Error(`no ingest backend for ${connection.dialect}`);
    this.ingest = new IngestWriter(new SqliteIngestBackend(connection.sqlite, connection.db), {
      idempotencyTtlMs: IDEMPOTENCY_TTL_MS,
      slaSeconds: policy.slaSeconds,
      maxAttempts: policy.maxAttempts,
      maxBatch: 256,
    });
  }

  static open(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'slaSeconds' | 'jobMaxAttempts'>): Store {
    const connection = connectStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    return new Store(connection, { slaSeconds: config.slaSeconds, maxAttempts: config.jobMaxAttempts });
  }

  forTenant(tenantId: string): { submissions: TenantSubmissions } {
    return { submissions: new TenantSubmissions(this.connection.db, tenantId) };
  }

  migrate(): Promise<{ applied: string[] }> {
    return migrateToLatest(this.connection.db, this.connection.dialect);
  }

  async isReady(): Promise<{ ok: boolean; reason?: string }> {
    try {
      const pending = await pendingMigrations(this.connection.db, this.connection.dialect);
      return pending.length === 0 ? { ok: true } : { ok: false, reason: 'migrations pending' };
    } catch {
      return { ok: false, reason: 'database unavailable' };
    }
  }

  async close(): Promise<void> {
    await this.ingest.drain();
    await this.connection.close();
  }
}
