import type { Logger } from 'pino';
import type { AuditOrigin } from '../domain/audit.js';
import type { SystemStore } from '../store/index.js';
import { LedgerError } from '../store/ledger/index.js';
import { compareLedger } from './ledger-check.js';

export interface OverrideReport {
  /** What was wrong with the ledger. */
  before: string;
  /** The old ledger file, kept renamed beside the new one (when there was one). */
  keptAs: string | null;
  accounts: number;
}

/**
 * The operator's way past a ledger that is missing, damaged or another database's: the ledger is
 * started again at the database's current state (the old file kept, renamed), in a transaction
 * holding the database's ledger row, and every account's trail records it
 * (`erasures.ledger_overridden`). Erasures recorded only in a lost ledger can no longer be
 * replayed: docs/backup.md says what to do about them.
 */
export async function overrideLedger(
  system: SystemStore,
  deps: { origin: AuditOrigin; now: Date; logger: Logger },
): Promise<OverrideReport> {
  const verdict = await compareLedger(system.ledger);
  if (verdict.kind === 'current')
    throw new LedgerError('the erasure ledger agrees with this database: there is nothing to override');
  if (verdict.kind === 'behind') {
    throw new LedgerError(
      `the erasure ledger is sound and holds ${verdict.missing.length} erasures this database misses: run "healthspan-admin erasures replay" instead`,
    );
  }
  if (verdict.foreign) {
    throw new LedgerError(
      `${verdict.message.replace(/ \(docs\/backup\.md\)$/, '')}; the override would take that database's ledger away from it (docs/backup.md)`,
    );
  }
  const before = verdict.message;
  const tenants = await system.accounts.allTenantIds();
  const at = deps.now.toISOString();
  const keptAs = await system.db.transaction().execute(async (trx) => {
    await system.ledger.hold(trx, at);
    const ledger = await system.ledger.ledger(trx);
    const restarted = await ledger.restart({
      kind: 'override',
      at,
      tenantId: null,
      erasureId: null,
      subject: null,
    });
    await system.ledger.reset(trx, restarted.entry);
    for (const id of tenants) {
      await system.audit.record(
        trx,
        id,
        { action: 'erasures.ledger_overridden', resourceType: 'tenant', resourceId: id },
        deps.origin,
        deps.now,
      );
    }
    return restarted.keptAs;
  });
  deps.logger.warn({ accounts: tenants.length }, 'the erasure ledger was started again by the operator');
  return { before, keptAs: keptAs ?? null, accounts: tenants.length };
}
