import type { Config } from '../config.js';
import { JobNotifier } from '../queue/notifier.js';
import { type ArtifactStore, DatabaseArtifactStore } from './artifact-store.js';
import { CommitBatcher } from './commit-batcher.js';
import { connectStore, type StoreConnection } from './connect.js';
import { migrateToLatest, pendingMigrations } from './migrate.js';
import { KyselyPreparedRunner, type PreparedRunner, SqlitePreparedRunner } from './prepared.js';
import { AccountsRepository } from './repositories/accounts.js';
import { IngestWriter } from './repositories/ingest.js';
import { JobsRepository } from './repositories/jobs.js';
import { PipelineRepository } from './repositories/pipeline.js';
import { ResultsRepository, TenantResults } from './repositories/results.js';
import { TenantSubmissions } from './repositories/submissions.js';
import { WebhooksRepository } from './repositories/webhooks.js';
import { SqliteIngestBackend } from './sqlite/ingest-backend.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** Everything the service keeps, behind one object: the only thing that knows the dialect. */
export class Store {
  readonly accounts: AccountsRepository;
  readonly ingest: IngestWriter;
  readonly jobs: JobsRepository;
  readonly pipeline: PipelineRepository;
  readonly results: ResultsRepository;
  /** Prepared statements for the hot paths, on the store's own connection. */
  readonly prepared: PreparedRunner;
  /** Report bytes, in the database, written in the transaction that makes them available. */
  readonly artifacts: ArtifactStore;
  /** Group commit for job completions and other worker writes. */
  readonly batcher: CommitBatcher;
  /** Callback endpoints, sealed secrets, the event outbox and the attempt log. */
  readonly webhooks: WebhooksRepository;
  /** Told after every commit that created jobs, so idle workers in this process wake at once. */
  readonly notifier = new JobNotifier();

  constructor(
    readonly connection: StoreConnection,
    policy: { slaSeconds: number; maxAttempts: number },
  ) {
    this.accounts = new AccountsRepository(connection.db, connection.dialect);
    this.prepared = connection.sqlite
      ? new SqlitePreparedRunner(connection.sqlite)
      : new KyselyPreparedRunner();
    this.artifacts = new DatabaseArtifactStore(connection.db, this.prepared);
    this.batcher = new CommitBatcher(connection.db, this.prepared);
    if (!connection.sqlite) throw new Error(`no ingest backend for ${connection.dialect}`);
    this.jobs = new JobsRepository(connection.db, connection.dialect, this.prepared);
    this.ingest = new IngestWriter(
      new SqliteIngestBackend(this.prepared, this.jobs, connection.db),
      this.batcher,
      {
        idempotencyTtlMs: IDEMPOTENCY_TTL_MS,
        slaSeconds: policy.slaSeconds,
        maxAttempts: policy.maxAttempts,
      },
      undefined,
      () => this.notifier.notify(),
    );
    this.pipeline = new PipelineRepository(connection.db, this.prepared);
    this.webhooks = new WebhooksRepository(connection.db);
    this.results = new ResultsRepository(connection.db, this.prepared);
  }

  static open(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'slaSeconds' | 'jobMaxAttempts'>): Store {
    const connection = connectStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl });
    return new Store(connection, {
      slaSeconds: config.slaSeconds,
      maxAttempts: config.jobMaxAttempts,
    });
  }

  forTenant(tenantId: string): { submissions: TenantSubmissions; results: TenantResults } {
    return {
      submissions: new TenantSubmissions(this.connection.db, tenantId),
      results: new TenantResults(this.connection.db, tenantId),
    };
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
    await this.batcher.drain();
    await this.connection.close();
  }
}
