import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AuditOrigin } from '../domain/audit.js';
import { faultPoint } from '../fault-points.js';
import { JobKinds } from '../queue/kinds.js';
import { Rescuer } from '../queue/maintenance/rescuer.js';
import { Worker } from '../queue/worker.js';
import type { Store, SystemStore } from '../store/index.js';
import type { LedgerBook, LedgerEntry } from '../store/ledger/index.js';
import { LedgerError } from '../store/ledger/index.js';
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
  /** Erasures already under way that the replay saw to completion (a stopped replay's, or ones restored pending). */
  resumed: number;
  /** Submissions the erasures it waited for removed. */
  submissions: number;
}

export interface ReplayDeps {
  clock: Clock;
  logger: Logger;
  origin: AuditOrigin;
  /** How long the erasures may take before the replay gives up (and can be run again). */
  timeoutMs?: number;
  /** The lease of the replay's erasure jobs (JOB_LEASE_SECONDS): how long a killed replay holds them. */
  leaseMs?: number;
}

/** The partner's references of an account's subjects, by the ledger's keyed hash of each. */
class SubjectIndex {
  private readonly byTenant = new Map<string, Map<string, string>>();

  constructor(
    private readonly system: SystemStore,
    private readonly book: LedgerBook,
  ) {}

  async find(trx: Executor, tenantId: string, subjectHash: string): Promise<string | undefined> {
    let index = this.byTenant.get(tenantId);
    if (!index) {
      const subjects = await this.system.erasures.subjectsOf(trx, tenantId);
      index = new Map(subjects.map((s) => [this.book.subjectHash(tenantId, s), s]));
      this.byTenant.set(tenantId, index);
    }
    return index.get(subjectHash);
  }
}

/** What a replay's entries consult: the subjects by hash, and the completions the ledger holds. */
interface ReplayContext {
  subjects: SubjectIndex;
  /** Erasure id → the seq of its `completed` entry, anywhere in the ledger. */
  completions: Map<string, number>;
}

/**
 * Replays the erasure ledger against a database that misses some of its entries (restored from a
 * backup), then sees every erasure under way to completion, whoever requested it. Each erasure
 * requested since the backup is requested again, by the same code as a live one
 * (`ErasureRepository.request`, then the erasure jobs, run here by a worker of that kind alone).
 * Each entry is taken in a transaction that moves the database's ledger position past it and
 * marks a replay under way (`replay_since`), so a replay stopped at any point is resumed by the
 * next, the service refuses to start meanwhile, and two at once share the entries. It returns,
 * and clears the mark, once no erasure is pending. Audited per erasure (`erasures.replayed`);
 * logged with counts.
 */
export async function replayErasures(store: Store, deps: ReplayDeps): Promise<ReplayReport> {
  const { system } = store;
  const verdict = await compareLedger(system.ledger);
  if (verdict.kind === 'broken') throw new LedgerError(verdict.message);
  const missing = verdict.kind === 'behind' ? verdict.missing : [];
  const created = await replayEntries(
    system,
    missing,
    {
      subjects: new SubjectIndex(system, system.ledger.book()),
      completions: completionsIn(verdict.entries),
    },
    deps,
  );
  faultPoint('replay.entries');
  const pending = await system.erasures.pendingIds();
  if (missing.length === 0 && verdict.replaySince === undefined && pending.length === 0) {
    return { entries: 0, erasures: 0, resumed: 0, submissions: 0 };
  }
  if (pending.length > 0) system.notifier.notify();
  const submissions = await runErasures(store, pending, deps);
  faultPoint('replay.erasures');
  await system.db.transaction().execute((trx) => system.ledger.replayFinished(trx));
  const report = {
    entries: missing.length,
    erasures: created.length,
    resumed: pending.filter((id) => !created.includes(id)).length,
    submissions,
  };
  deps.logger.info(report, 'erasures replayed from the erasure ledger');
  emit('erasures.replayed', report);
  return report;
}

/** Each missing entry in a transaction of its own, oldest first; the erasures requested again. */
async function replayEntries(
  system: SystemStore,
  missing: LedgerEntry[],
  context: ReplayContext,
  deps: ReplayDeps,
): Promise<string[]> {
  const created: string[] = [];
  for (const entry of missing) {
    const id = await system.db.transaction().execute((trx) => replayEntry(trx, system, entry, context, deps));
    if (id !== undefined) created.push(id);
    faultPoint('replay.entry');
  }
  return created;
}

function completionsIn(entries: LedgerEntry[]): Map<string, number> {
  const completions = new Map<string, number>();
  for (const e of entries) if (e.kind === 'completed' && e.erasureId) completions.set(e.erasureId, e.seq);
  return completions;
}

/**
 * One entry. A `requested` one: the erasure requested again when its subject has submissions here
 * and the erasure is not here. A `completed` one whose erasure is pending here: it still has to
 * complete here, without a second `completed` entry.
 */
async function replayEntry(
  trx: Executor,
  system: SystemStore,
  entry: LedgerEntry,
  context: ReplayContext,
  deps: ReplayDeps,
): Promise<string | undefined> {
  if (!(await system.ledger.advance(trx, entry))) return undefined;
  await system.ledger.replayStarted(trx, deps.clock());
  const { tenantId, erasureId, subject } = entry;
  if (entry.kind === 'completed' && erasureId) {
    await system.erasures.completionInLedger(trx, erasureId, entry.seq);
    return undefined;
  }
  if (entry.kind !== 'requested' || !tenantId || !erasureId || !subject) return undefined;
  if (await system.erasures.exists(trx, erasureId)) return undefined;
  const partnerSubjectId = await context.subjects.find(trx, tenantId, subject);
  if (partnerSubjectId === undefined) return undefined;
  const now = deps.clock();
  const { erasure } = await system.erasures.request(trx, tenantId, partnerSubjectId, deps.origin, now, {
    replayOf: entry,
    ...(context.completions.has(erasureId) ? { completedSeq: context.completions.get(erasureId) } : {}),
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

/**
 * Runs the erasure jobs until the given erasures completed; the submissions they removed. A job
 * a stopped process still held (a replay killed mid-way) is taken back once its lease ran out,
 * as the service's rescuer would, so the replay never waits for a service to run.
 */
async function runErasures(store: Store, ids: string[], deps: ReplayDeps): Promise<number> {
  if (ids.length === 0) return 0;
  const kinds = registerErasureJobs(new JobKinds(), { store: store.system, clock: deps.clock });
  const { logger, clock } = deps;
  const worker = new Worker({
    store: store.system,
    kinds,
    logger,
    clock,
    pollMs: 250,
    leaseMs: deps.leaseMs,
  });
  const rescuer = new Rescuer({ store: store.system, kinds, logger, clock, onlyItsKinds: true });
  worker.start();
  try {
    const deadline = performance.now() + (deps.timeoutMs ?? 10 * 60_000);
    for (let polls = 0; ; polls++) {
      const progress = await store.system.erasures.progressOf(ids);
      if (progress.pending === 0) return progress.submissions;
      if (performance.now() > deadline) {
        throw new LedgerError('the replayed erasures did not complete in time; run the replay again');
      }
      if (polls % 20 === 0) await rescuer.runOnce();
      await delay(50);
    }
  } finally {
    await worker.stop();
  }
}

/** Records in every account's trail that its data went back to a backup (`backup.restored`). */
export async function recordRestore(system: SystemStore, origin: AuditOrigin, now: Date): Promise<number> {
  const tenants = await system.accounts.allTenantIds();
  await system.db.transaction().execute(async (trx) => {
    for (const id of tenants) {
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
