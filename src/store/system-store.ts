import type { Kysely } from 'kysely';
import type { JobNotifier } from '../jobs/notifier.js';
import type { ArtifactStore } from './artifact-store.js';
import type { Committer } from './commit-batcher.js';
import type { Database } from './database.js';
import type { LedgerStateRepository } from './ledger/index.js';
import type { Executor } from './prepared.js';
import type { AccountsRepository } from './repositories/accounts.js';
import type { AuditRepository } from './repositories/audit.js';
import type { EndpointHealthRepository } from './repositories/endpoint-health.js';
import type { ErasureRepository } from './repositories/erasures.js';
import type { IngestWriter } from './repositories/ingest.js';
import type { JobsRepository } from './repositories/jobs.js';
import type { MaintenanceRepository } from './repositories/maintenance.js';
import type { PipelineRepository } from './repositories/pipeline.js';
import type { ResultsRepository } from './repositories/results.js';
import type { WebhooksRepository } from './repositories/webhooks.js';

/** The unscoped store (`Store.system`): workers, the CLI, the authenticator and maintenance. */
export interface SystemStore {
  readonly accounts: AccountsRepository;
  readonly ingest: IngestWriter;
  readonly jobs: JobsRepository;
  readonly pipeline: PipelineRepository;
  readonly results: ResultsRepository;
  /** Report bytes: in the database (with the commit that makes them available) or an object store. */
  readonly artifacts: ArtifactStore;
  /** Callback endpoints, sealed secrets, the event outbox and the attempt log. */
  readonly webhooks: WebhooksRepository;
  /** Each endpoint's failure clock, its disabling, and the endpoints by status. */
  readonly endpointHealth: EndpointHealthRepository;
  /** What the maintenance services delete. */
  readonly maintenance: MaintenanceRepository;
  /** Erasure requests and the removal of a submission with everything derived from it. */
  readonly erasures: ErasureRepository;
  /** The append-only audit trail, written in the transaction of the action it records. */
  readonly audit: AuditRepository;
  /** The database's position in the erasure ledger, kept apart from it (docs/backup.md). */
  readonly ledger: LedgerStateRepository;
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
