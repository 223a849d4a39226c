import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AuditOrigin } from '../domain/audit.js';
import { JobKinds } from '../queue/kinds.js';
import { Worker } from '../queue/worker.js';
import type { ErasureLedger, LedgerEntry } from '../store/erasure-ledger.js';
import { LedgerError } from '../store/erasure-ledger.js';
import type { Store, SystemStore } from '../store/index.js';
import type { Executor } from '../store/prepared.js';
import { emit } from '../telemetry/events.js';
import { registerErasureJobs } from './erasure-job.js';
import { compareLedger } from './ledger-check.js';

/** What a replay did: counts only, never an identifier. */
export interface ReplayReport {
  /** Ledger entries the database had not applied. */
  entries: number;
  /** Erasures requested again (each erased its subject's submissions found in this database). */
  erasures: number;
  /** Submissions those erasures removed. */
  submissions: number;
}

export interface ReplayDeps {
  clock: Clock;
  logger: Logger;
  origin: AuditOrigin;
  /** How long the erasures may take before the replay gives up (and can be run again). */
  timeoutMs?: number;
}

/** The partner's references of an account's subjects, by the ledger's keyed hash of each. */
class SubjectIndex {
  private readonly byTenant = new Map<string, Map<string, string>>();

  constructor(private readonly ledger: ErasureLedger) {}

  async find(trx: Executor, tenantId: string, subjectHash: string): Promise<string | undefined> {
    let index = this.byTenant.get(tenantId);
    if (!index) {
      const rows = await trx
        .selectFrom('submissions')
        .select('partner_subject_id')
        .distinct()
        .where('tenant_id', '=', tenantId)
        .execute();
      index = new Map(
        rows.map((r) => [this.ledger.subjectHash(tenantId, r.partner_subject_id), r.partner_subject_id]),
      );
      this.byTenant.set(tenantId, index);
    }
    return index.get(subjectHash);
  }
}

/**
 * Replays the erasure ledger against a database that misses some of its entries (restored from a
 * backup): each erasure requested since is requested again, by the same code as a live one
 * (`ErasureRepository.request`, then the erasure jobs, run here by a worker of that kind alone),
 * and the replay returns once they completed. Each entry is taken in a transaction that moves
 * the database's ledger position past it, so a replay stopped half-way is resumed by the next,
 * and two at once share the entries. Audited per erasure (`erasures.replayed`); logged with counts.
 */
export async function replayErasures(store: Store, deps: ReplayDeps): Promise<ReplayReport> {
  const verdict = await compareLedger(store.system);
  if (verdict.kind === 'broken') throw new LedgerError(verdict.message);
  if (verdict.kind === 'current') return { entries: 0, erasures: 0, submissions: 0 };
  const subjects = new SubjectIndex(store.system.ledger.ledger());
  const erasureIds: string[] = [];
  for (const entry of verdict.missing) {
    const id = await store.system.db
      .transaction()
      .execute((trx) => replayEntry(trx, store.system, entry, subjects, deps));
    if (id !== undefined) erasureIds.push(id);
  }
  if (erasureIds.length > 0) store.system.notifier.notify();
  const submissions = await runErasures(store, erasureIds, deps);
  const report = { entries: verdict.missing.length, erasures: erasureIds.length, submissions };
  deps.logger.info(report, 'erasures replayed from the erasure ledger');
  emit('erasures.replayed', report);
  return report;
}

/** One entry: the erasure requested again when its subject has submissions here and it does not. */
async function replayEntry(
  trx: Executor,
  system: SystemStore,
  entry: LedgerEntry,
  subjects: SubjectIndex,
  deps: ReplayDeps,
): Promise<string | undefined> {
  if (!(await system.ledger.advance(trx, entry))) return undefined;
  const { tenantId, erasureId, subject } = entry;
  if (entry.kind !== 'requested' || !tenantId || !erasureId || !subject) return undefined;
  const present = await trx
    .selectFrom('erasures')
    .select('id')
    .where('id', '=', erasureId)
    .executeTakeFirst();
  if (present) return undefined;
  const partnerSubjectId = await subjects.find(trx, tenantId, subject);
  if (partnerSubjectId === undefined) return undefined;
  const now = deps.clock();
  const { erasure } = await system.erasures.request(trx, tenantId, partnerSubjectId, deps.origin, now, {
    replayOf: entry,
  });
  await system.audit.record(
    trx,
    tenantId,
    { action: 'erasures.replayed', resourceType: 'erasure', resourceId: erasure.erasureId },
    deps.origin,
    now,
  );
  return erasure.erasureId;
}

/** Runs the erasure jobs until the given erasures completed; the submissions they removed. */
async function runErasures(store: Store, ids: string[], deps: ReplayDeps): Promise<number> {
  if (ids.length === 0) return 0;
  const kinds = registerErasureJobs(new JobKinds(), { store: store.system, clock: deps.clock });
  const worker = new Worker({
    store: store.system,
    kinds,
    logger: deps.logger,
    clock: deps.clock,
    pollMs: 250,
  });
  worker.start();
  try {
    const deadline = performance.now() + (deps.timeoutMs ?? 10 * 60_000);
    for (;;) {
      const rows = await store.system.db
        .selectFrom('erasures')
        .select(['status', 'submissions'])
        .where('id', 'in', ids)
        .execute();
      if (rows.every((r) => r.status === 'completed')) return rows.reduce((n, r) => n + r.submissions, 0);
      if (performance.now() > deadline) {
        throw new LedgerError('the replayed erasures did not complete in time; run the replay again');
      }
      await delay(50);
    }
  } finally {
    await worker.stop();
  }
}

/** Records in every account's trail that its data went back to a backup (`backup.restored`). */
export async function recordRestore(system: SystemStore, origin: AuditOrigin, now: Date): Promise<number> {
  const tenants = await system.db.selectFrom('tenants').select('id').execute();
  await system.db.transaction().execute(async (trx) => {
    for (const { id } of tenants) {
      await system.audit.record(
        trx,
        id,
        { action: 'backup.restored', resourceType: 'tenant', resourceId: id },
        origin,
        now,
      );
    }
  });
  return tenants.length;
}
