import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { type Config, SETTINGS } from '../config.js';
import { IDEMPOTENCY_TTL_MS } from '../fixed-defaults.js';
import { JobNotifier } from '../jobs/notifier.js';
import { SecretBox } from '../secret-box.js';
import { type ArtifactStore, DatabaseArtifactStore } from './artifact-store.js';
import type { Driver } from './driver.js';
import { FileArtifactStore } from './embedded/file-artifact-store.js';
import { LedgerKeys } from './ledger/ledger-file.js';
import { LedgerBook } from './ledger/place.js';
import { LedgerStateRepository } from './ledger/state.js';
import { migrateToLatest, pendingMigrations } from './migrate.js';
import { S3ArtifactStore } from './object-store/s3-artifact-store.js';
import { openPostgresDriver } from './postgres/driver.js';
import { AccountsRepository } from './repositories/accounts.js';
import { AuditRepository } from './repositories/audit.js';
import { ConsoleSessionsRepository } from './repositories/console-sessions.js';
import { EndpointHealthRepository } from './repositories/endpoint-health.js';
import { ErasureRepository, type Sealer } from './repositories/erasures.js';
import { IngestWriter } from './repositories/ingest.js';
import { JobsRepository } from './repositories/jobs.js';
import { MaintenanceRepository } from './repositories/maintenance.js';
import { PipelineRepository } from './repositories/pipeline.js';
import { ResultsRepository } from './repositories/results.js';
import { WebhooksRepository } from './repositories/webhooks.js';
import { loadOrCreateSecret } from './secrets.js';
import { openSqliteDriver, type SqliteDriverOptions } from './sqlite/driver.js';
import type { SystemStore } from './system-store.js';
import type { ArtifactGateway, TenantAccess, TenantGateway } from './tenant-access.js';
import { tenantScope } from './tenant-scope.js';

export type { SystemStore } from './system-store.js';

export type StoreConfig = Pick<Config, 'dataDir' | 'databaseUrl' | 'slaSeconds' | 'jobMaxAttempts'> &
  Partial<
    Pick<
      Config,
      'databasePoolSize' | 'webhookSecretsKey' | 'objectStore' | 'erasureLedger' | 'embeddedArtifacts'
    >
  >;

/** The master key of sealed values and the erasure ledger: WEBHOOK_SECRETS_KEY, else its generated file. */
export function masterKeyFor(config: StoreConfig): Buffer {
  return config.webhookSecretsKey
    ? Buffer.from(config.webhookSecretsKey, 'utf8')
    : loadOrCreateSecret(config.dataDir, 'webhook-secrets.key');
}

/** The erasure ledgers `config` names (ERASURE_LEDGER, else beside the data: store/ledger/README.md). */
export function ledgerBookFor(config: StoreConfig): LedgerBook {
  return new LedgerBook(
    {
      file: config.erasureLedger,
      dataDir: config.dataDir,
      embedded: !isPostgresUrl(config.databaseUrl),
    },
    new LedgerKeys(() => masterKeyFor(config)),
  );
}

/** The store `config` names for report bytes; none = in the database (`DatabaseArtifactStore`). */
function artifactStoreFor(config: StoreConfig): { artifacts?: ArtifactStore } {
  if (config.objectStore) return { artifacts: new S3ArtifactStore(config.objectStore) };
  if (isPostgresUrl(config.databaseUrl)) return {};
  return config.embeddedArtifacts === 'files' ? { artifacts: new FileArtifactStore(config.dataDir) } : {};
}

/**
 * The report store `config` names answers, its bucket exists, and these credentials may write,
 * read and delete there; else its one sentence naming the setting. Checked on a store of its
 * own, before the database is opened.
 */
export async function checkArtifactStoreOf(config: StoreConfig): Promise<void> {
  const { artifacts } = artifactStoreFor(config);
  if (!artifacts) return;
  try {
    await artifacts.check();
  } finally {
    await artifacts.close();
  }
}

/**
 * The warning for a DATABASE_URL naming the server's own maintenance database (`postgres`, or a
 * template): healthspan's tables would sit among whatever else uses it. Undefined otherwise.
 */
export function maintenanceDatabase(url: string | undefined): string | undefined {
  if (!isPostgresUrl(url)) return undefined;
  let name: string;
  try {
    name = decodeURIComponent(new URL(url).pathname.slice(1));
  } catch {
    return undefined;
  }
  if (!['postgres', 'template0', 'template1'].includes(name)) return undefined;
  return `DATABASE_URL names the server's maintenance database "${name}": give healthspan a database of its own (createdb healthspan; docs/postgresql.md)`;
}

export function isPostgresUrl(url: string | undefined): url is string {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

export { DatabaseUnavailableError } from './postgres/connect-failure.js';
export { NoStoreError } from './sqlite/driver.js';

/** How a store is opened: its clock always; the rest as the caller needs. */
export interface StoreOptions extends SqliteDriverOptions {
  /** The service's clock: what the store stamps (accounts, ingest, idempotency expiry). */
  clock: Clock;
  /** Receives connection trouble (never credentials). */
  logger: Logger;
}

/**
 * Unscoped access to everything the service keeps: for workers, the CLI and the authenticator,
 * never for a route (routes get a `TenantAccess`). Named so that using it is a visible choice
 * (Medplum's `getSystemRepo`).
 */
/**
 * The store: a driver (SQLite or PostgreSQL), the repositories built on it, and the two ways
 * in: `system` (unscoped) and `forTenant` (bound to one account).
 */
export class Store implements TenantGateway, ArtifactGateway {
  readonly system: SystemStore;
  /** The console's links and sessions (`ConsoleGateway`, handed to the console's routes). */
  readonly console: ConsoleSessionsRepository;
  private readonly tenants = new LRUCache<string, TenantAccess>({ max: 10_000 });

  private readonly clock: Clock;

  constructor(
    readonly driver: Driver,
    policy: { slaSeconds: number; maxAttempts: number },
    deps: {
      clock: Clock;
      logger: Logger;
      /** Made when first needed (an erasure): it may create the key file in DATA_DIR. */
      sealer?: () => Sealer;
      /** Where report bytes go; the database (`artifact_contents`) unless given. */
      artifacts?: ArtifactStore;
      /** The erasure ledgers, apart from the database (docs/backup.md); needed by erasures. */
      ledgers?: LedgerBook;
    },
  ) {
    const { clock } = deps;
    this.clock = clock;
    const { logger } = deps;
    const sealer =
      deps.sealer ??
      (() => {
        throw new Error('this store was opened without a key to seal erasure records with');
      });
    const batcher = driver.committer;
    const notifier = new JobNotifier(driver.wakeSource(logger));
    const audit = new AuditRepository(driver);
    const jobs = new JobsRepository(driver);
    const ledger = new LedgerStateRepository(driver.db, () => {
      if (!deps.ledgers) throw new Error('this store was opened without an erasure ledger');
      return deps.ledgers;
    });
    let sealerInstance: Sealer | undefined;
    this.console = new ConsoleSessionsRepository(driver.db, audit);
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
      artifacts: deps.artifacts ?? new DatabaseArtifactStore(driver, batcher),
      webhooks: new WebhooksRepository(driver),
      endpointHealth: new EndpointHealthRepository(driver),
      maintenance: new MaintenanceRepository(driver),
      erasures: new ErasureRepository(driver, {
        jobs,
        audit,
        ledger,
        sealer: () => {
          sealerInstance ??= sealer();
          return sealerInstance;
        },
        maxAttempts: policy.maxAttempts,
      }),
      audit,
      ledger,
      flushDeletes: () => driver.flushDeletes(),
      batcher,
      notifier,
      db: driver.db,
      tryExclusive: (trx, lockKey) => driver.tryExclusive(trx, lockKey),
    };
  }

  /**
   * Opens the store `config` names. With `existing`, a SQLite store that is not there is not
   * created: `NoStoreError` (a PostgreSQL database is never created; `isReady` says whether it
   * is migrated).
   */
  static open(config: StoreConfig, options: StoreOptions): Store {
    const { clock, logger } = options;
    if (config.databaseUrl !== undefined && !isPostgresUrl(config.databaseUrl)) {
      throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
    }
    const driver = isPostgresUrl(config.databaseUrl)
      ? // Callers without a full Config (tests, tools) get the setting's default pool size.
        openPostgresDriver(
          config.databaseUrl,
          config.databasePoolSize ?? Number(SETTINGS.DATABASE_POOL_SIZE.default),
          logger,
        )
      : openSqliteDriver(config.dataDir, options);
    return new Store(
      driver,
      { slaSeconds: config.slaSeconds, maxAttempts: config.jobMaxAttempts },
      {
        clock,
        logger,
        ...artifactStoreFor(config),
        // The key that seals webhook secrets (WEBHOOK_SECRETS_KEY, else generated in DATA_DIR).
        sealer: () =>
          new SecretBox(
            config.webhookSecretsKey ?? loadOrCreateSecret(config.dataDir, 'webhook-secrets.key'),
          ),
        ledgers: ledgerBookFor(config),
      },
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
    return tenantScope({ system: this.system, driver: this.driver, clock: this.clock, tenantId });
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

  /** Throws `DatabaseUnavailableError` (one sentence: the setting, what failed, the fix) when the database cannot be opened. */
  checkConnection(): Promise<void> {
    return this.driver.checkConnection();
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
    await this.system.artifacts.close();
    await this.driver.close();
  }
}
