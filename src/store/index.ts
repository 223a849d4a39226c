import pino, { type Logger } from 'pino';
import type { Config } from '../config.js';
import { JobNotifier } from '../queue/notifier.js';
import { type ArtifactStore, DatabaseArtifactStore } from './artifact-store.js';
import { CommitBatcher, CommitLanes, type Committer } from './commit-batcher.js';
import { connectStore, type StoreConnection } from './connect.js';
import { migrateToLatest, pendingMigrations } from './migrate.js';
import { PostgresIngestBackend } from './postgres/ingest-backend.js';
import { PostgresJobListener } from './postgres/job-listener.js';
import { KyselyPreparedRunner, type PreparedRunner, SqlitePreparedRunner } from './prepared.js';
import { AccountsRepository } from './repositories/accounts.js';
import { type IngestBackend, IngestWriter } from './repositories/ingest.js';
import { JobsRepository } from './repositories/jobs.js';
import { PipelineRepository } from './repositories/pipeline.js';
import { ResultsRepository, TenantResults } from './repositories/results.js';
import { TenantSubmissions } from './repositories/submissions.js';
import { WebhooksRepository } from './repositories/webhooks.js';
import { SqliteIngestBackend } from './sqlite/ingest-backend.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type StoreConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'slaSeconds' | 'jobMaxAttempts'> &
  Partial<Pick<Config, 'databasePoolSize'>>;

/** Everything the service keeps, behind one object: the only thing that knows the dialect. */
export class Store {
  readonly accounts: AccountsRepository;
  readonly ingest: IngestWriter;
  /** How this store writes one submission (for writers with their own clock or policy). */
  readonly ingestBackend: IngestBackend;
  readonly jobs: JobsRepository;
  readonly pipeline: PipelineRepository;
  readonly results: ResultsRepository;
  /** Prepared statements for the hot paths, on the store's own connection. */
  readonly prepared: PreparedRunner;
  /** Report bytes, in the database, written in the transaction that makes them available. */
  readonly artifacts: ArtifactStore;
  /** Group commit for job completions and other worker writes. */
  readonly batcher: Committer;
  /** Callback endpoints, sealed secrets, the event outbox and the attempt log. */
  readonly webhooks: WebhooksRepository;
  /**
   * Told after every commit that created jobs, so idle workers in this process wake at once; on
   * PostgreSQL it also listens (while a worker subscribes) for jobs committed by other processes.
   */
  readonly notifier: JobNotifier;

  constructor(
    readonly connection: StoreConnection,
    policy: { slaSeconds: number; maxAttempts: number },
    logger: Logger = pino({ level: 'silent' }),
  ) {
    this.accounts = new AccountsRepository(connection.db, connection.dialect);
    this.prepared = connection.sqlite
      ? new SqlitePreparedRunner(connection.sqlite)
      : new KyselyPreparedRunner();
    this.artifacts = new DatabaseArtifactStore(connection.db, this.prepared);
    // SQLite: one connection, one batcher. PostgreSQL: four lanes for ingest, four for the queue.
    this.batcher = connection.sqlite
      ? new CommitBatcher(connection.db, this.prepared)
      : new CommitLanes(
          Array.from({ length: 4 }, () => new CommitBatcher(connection.db, this.prepared)),
          // Queue work waits up to 25 ms after the previous commit to share the next one
          // (measured: fewer, larger transactions cost PostgreSQL less CPU per job than 10 ms).
          Array.from({ length: 4 }, () => new CommitBatcher(connection.db, this.prepared, 256, 25)),
        );
    this.notifier = new JobNotifier(
      connection.postgres ? new PostgresJobListener(connection.postgres.clientConfig, logger) : undefined,
    );
    this.jobs = new JobsRepository(connection.db, connection.dialect, this.prepared);
    this.ingestBackend = connection.sqlite
      ? new SqliteIngestBackend(this.prepared, this.jobs, connection.db)
      : new PostgresIngestBackend(this.prepared, connection.db);
    this.ingest = new IngestWriter(
      this.ingestBackend,
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
    this.webhooks = new WebhooksRepository(connection.db, this.prepared);
    this.results = new ResultsRepository(connection.db, this.prepared, connection.dialect);
  }

  /** `logger` receives connection trouble (never credentials); silent when not given. */
  static open(config: StoreConfig, logger: Logger = pino({ level: 'silent' })): Store {
    const connection = connectStore({
      dataDir: config.dataDir,
      databaseUrl: config.databaseUrl,
      // Callers without a full Config (tests, tools) get the setting's default.
      poolSize: config.databasePoolSize ?? 10,
      logger,
    });
    return new Store(
      connection,
      { slaSeconds: config.slaSeconds, maxAttempts: config.jobMaxAttempts },
      logger,
    );
  }

  forTenant(tenantId: string): { submissions: TenantSubmissions; results: TenantResults } {
    return {
      submissions: new TenantSubmissions(this.connection, tenantId),
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
    await this.notifier.close();
    await this.connection.close();
  }
}
