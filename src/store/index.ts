import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import pino, { type Logger } from 'pino';
import { type Clock, systemClock } from '../clock.js';
import type { Config } from '../config.js';
import type { AuditOrigin } from '../domain/audit.js';
import { JobNotifier } from '../jobs/notifier.js';
import { SecretBox } from '../secret-box.js';
import { type ArtifactStore, DatabaseArtifactStore } from './artifact-store.js';
import type { Committer } from './commit-batcher.js';
import type { Database } from './database.js';
import type { Driver } from './driver.js';
import { migrateToLatest, pendingMigrations } from './migrate.js';
import { openPostgresDriver } from './postgres/driver.js';
import type { Executor } from './prepared.js';
import { AccountsRepository } from './repositories/accounts.js';
import { AuditRepository } from './repositories/audit.js';
import { ErasureRepository, type Sealer } from './repositories/erasures.js';
import { IngestWriter } from './repositories/ingest.js';
import { JobsRepository } from './repositories/jobs.js';
import { MaintenanceRepository } from './repositories/maintenance.js';
import { PipelineRepository } from './repositories/pipeline.js';
import { ResultsRepository, TenantResults } from './repositories/results.js';
import { TenantSubmissionList } from './repositories/submission-list.js';
import { TenantSubmissions } from './repositories/submissions.js';
import { TenantArtifacts } from './repositories/tenant-artifacts.js';
import { WebhooksRepository } from './repositories/webhooks.js';
import type { AuditEntry } from './rows.js';
import { loadOrCreateSecret } from './secrets.js';
import { openSqliteDriver, type SqliteDriverOptions } from './sqlite/driver.js';
import type { ArtifactGateway, TenantAccess, TenantGateway } from './tenant-access.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export type StoreConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'slaSeconds' | 'jobMaxAttempts'> &
  Partial<Pick<Config, 'databasePoolSize' | 'webhookSecretsKey'>>;

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

export { sqliteFile } from './sqlite/driver.js';

/**
 * Unscoped access to everything the service keeps: for workers, the CLI and the authenticator,
 * never for a route (routes get a `TenantAccess`). Named so that using it is a visible choice
 * (Medplum's `getSystemRepo`).
 */
export interface SystemStore {
  readonly accounts: AccountsRepository;
  readonly ingest: IngestWriter;
  readonly jobs: JobsRepository;
  readonly pipeline: PipelineRepository;
  readonly results: ResultsRepository;
  /** Report bytes, in the database, written in the transaction that makes them available. */
  readonly artifacts: ArtifactStore;
  /** Callback endpoints, sealed secrets, the event outbox and the attempt log. */
  readonly webhooks: WebhooksRepository;
  /** What the maintenance services delete. */
  readonly maintenance: MaintenanceRepository;
  /** Erasure requests and the removal of a submission with everything derived from it. */
  readonly erasures: ErasureRepository;
  /** The append-only audit trail, written in the transaction of the action it records. */
  readonly audit: AuditRepository;
  /** After erasing: deleted rows made unreadable in the database's files (`Driver.flushDeletes`). */
  flushDeletes(): Promise<void>;
  /** Group commit for ingest, job transitions and every other write. */
  readonly batcher: Committer;
  /**
   * Told after every commit that created jobs, so idle workers in this process wake at once; on
   * PostgreSQL it also listens (while a worker subscribes) for jobs committed by other processes.
   */
  readonly notifier: JobNotifier;
  /** The connection, for reads outside a transaction (the repositories' `db` argument). */
  readonly db: Kysely<Database>;
  /** One process at a time runs a maintenance pass holding this (`Driver.tryExclusive`). */
  tryExclusive(trx: Executor, lockKey: number): Promise<boolean>;
}

/**
 * The store: a driver (SQLite or PostgreSQL), the repositories built on it, and the two ways
 * in: `system` (unscoped) and `forTenant` (bound to one account).
 */
export class Store implements TenantGateway, ArtifactGateway {
  readonly system: SystemStore;
  private readonly tenants = new LRUCache<string, TenantAccess>({ max: 10_000 });

  constructor(
    readonly driver: Driver,
    policy: { slaSeconds: number; maxAttempts: number },
    logger: Logger = pino({ level: 'silent' }),
    private readonly clock: Clock = systemClock,
    /** Made when first needed (an erasure): it may create the key file in DATA_DIR. */
    sealer: () => Sealer = () => {
      throw new Error('this store was opened without a key to seal erasure records with');
    },
  ) {
    const batcher = driver.committer;
    const notifier = new JobNotifier(driver.wakeSource(logger));
    const audit = new AuditRepository(driver);
    const jobs = new JobsRepository(driver);
    let sealerInstance: Sealer | undefined;
    this.system = {
      accounts: new AccountsRepository(driver, clock, audit),
      ingest: new IngestWriter(
        driver,
        batcher,
        {
          idempotencyTtlMs: IDEMPOTENCY_TTL_MS,
          slaSeconds: policy.slaSeconds,
          maxAttempts: policy.maxAttempts,
        },
        clock,
        audit,
        () => notifier.notify(),
      ),
      jobs,
      pipeline: new PipelineRepository(driver),
      results: new ResultsRepository(driver),
      artifacts: new DatabaseArtifactStore(driver),
      webhooks: new WebhooksRepository(driver),
      maintenance: new MaintenanceRepository(driver),
      erasures: new ErasureRepository(driver, {
        jobs,
        audit,
        sealer: () => {
          sealerInstance ??= sealer();
          return sealerInstance;
        },
        maxAttempts: policy.maxAttempts,
      }),
      audit,
      flushDeletes: () => driver.flushDeletes(),
      batcher,
      notifier,
      db: driver.db,
      tryExclusive: (trx, lockKey) => driver.tryExclusive(trx, lockKey),
    };
  }

  /** `logger` receives connection trouble (never credentials); silent when not given. */
  static open(
    config: StoreConfig,
    logger: Logger = pino({ level: 'silent' }),
    clock: Clock = systemClock,
    /** The service's store: background work (SQLite's checkpoints) runs off the event loop. */
    options: SqliteDriverOptions = {},
  ): Store {
    if (config.databaseUrl !== undefined && !isPostgresUrl(config.databaseUrl)) {
      throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
    }
    const driver = isPostgresUrl(config.databaseUrl)
      ? // Callers without a full Config (tests, tools) get the setting's default pool size.
        openPostgresDriver(config.databaseUrl, config.databasePoolSize ?? 10, logger)
      : openSqliteDriver(config.dataDir, options);
    return new Store(
      driver,
      { slaSeconds: config.slaSeconds, maxAttempts: config.jobMaxAttempts },
      logger,
      clock,
      // The key that seals webhook secrets (WEBHOOK_SECRETS_KEY, else generated in DATA_DIR).
      () =>
        new SecretBox(config.webhookSecretsKey ?? loadOrCreateSecret(config.dataDir, 'webhook-secrets.key')),
    );
  }

  /**
   * Data access bound to one account: every query it runs carries the account's predicate. The
   * objects hold nothing but the account's id, so one per account is kept and handed to each of
   * its requests (a few thousand accounts at most; past 10,000 the least recent is dropped).
   */
  forTenant(tenantId: string): TenantAccess {
    let access = this.tenants.get(tenantId);
    if (!access) {
      access = this.scoped(tenantId);
      this.tenants.set(tenantId, access);
    }
    return access;
  }

  private scoped(tenantId: string): TenantAccess {
    const { system, driver, clock } = this;
    const submissions = new TenantSubmissions(driver, tenantId);
    const results = new TenantResults(driver.db, tenantId);
    const artifacts = new TenantArtifacts(driver.db, tenantId, {
      bytes: system.artifacts,
      pipeline: system.pipeline,
      results: system.results,
      committer: system.batcher,
    });
    /** A read is recorded before it is answered: no answer without its audit event. */
    const recordRead = (entry: AuditEntry, origin: AuditOrigin): Promise<void> =>
      // Commit unit: one insert through `trx`.
      system.batcher.submit((trx) => system.audit.record(trx, tenantId, entry, origin, clock()), {
        urgent: true,
      });
    return {
      tenantId,
      submissions: {
        get: async (submissionId, origin) => {
          const found = await submissions.get(submissionId);
          if (found) {
            await recordRead(
              { action: 'submission.read', resourceType: 'submission', resourceId: submissionId },
              origin,
            );
          }
          return found;
        },
        ingest: (command) => system.ingest.ingest({ ...command, tenantId }),
        list: (query, origin) => new TenantSubmissionList(driver, tenantId, recordRead).list(query, origin),
      },
      results: {
        get: async (resultId, origin) => {
          const found = await results.get(resultId);
          if (found)
            await recordRead({ action: 'result.read', resourceType: 'result', resourceId: resultId }, origin);
          return found;
        },
        locate: (resultId) => results.locate(resultId),
        exportSource: async (resultId, origin) => {
          const found = await results.exportSource(resultId);
          if (found)
            await recordRead(
              { action: 'result.exported', resourceType: 'result', resourceId: resultId },
              origin,
            );
          return found;
        },
      },
      artifacts: {
        downloadable: (artifactId) => artifacts.downloadable(artifactId),
        recreation: (artifactId) => artifacts.recreation(artifactId),
        restore: (artifactId, body) => artifacts.restore(artifactId, body),
        downloaded: (artifactId, origin) =>
          recordRead(
            { action: 'artifact.downloaded', resourceType: 'artifact', resourceId: artifactId },
            origin,
          ),
      },
      erasures: {
        request: async (partnerSubjectId, origin) => {
          // Commit unit: decides from the subject's submissions read in `trx`; a second attempt
          // makes a new erasure id (the first one's rows were rolled back) and reuses the
          // sealing key file the first one may have created.
          const { erasure, enqueued } = await system.batcher.submit(
            (trx) => system.erasures.request(trx, tenantId, partnerSubjectId, origin, clock()),
            // One subject's requests queue behind each other (the same lane on PostgreSQL).
            { urgent: true, lockKey: `erasure:${tenantId}:${partnerSubjectId}` },
          );
          if (enqueued) system.notifier.notify();
          return erasure;
        },
        get: (erasureId) => system.erasures.get(tenantId, erasureId),
      },
      audit: {
        list: (query) => system.audit.list(tenantId, query),
      },
    };
  }

  /** A signed download link names only the artifact: its account is looked up, then scoped to. */
  async forArtifact(artifactId: string): Promise<TenantAccess | undefined> {
    const row = await this.driver.db
      .selectFrom('artifacts')
      .select('tenant_id')
      .where('id', '=', artifactId)
      .executeTakeFirst();
    return row ? this.forTenant(row.tenant_id) : undefined;
  }

  get describe(): string {
    return this.driver.describe;
  }

  migrate(): Promise<{ applied: string[] }> {
    return migrateToLatest(this.driver);
  }

  async isReady(): Promise<{ ok: boolean; reason?: string }> {
    try {
      const pending = await pendingMigrations(this.driver);
      return pending.length === 0 ? { ok: true } : { ok: false, reason: 'migrations pending' };
    } catch {
      return { ok: false, reason: 'database unavailable' };
    }
  }

  async close(): Promise<void> {
    await this.system.batcher.drain();
    await this.system.notifier.close();
    await this.driver.close();
  }
}
