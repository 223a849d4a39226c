import type { Command } from 'commander';
import type { ApiMode } from '../domain/mode.js';
import { compareLedger, refusalOf, settled } from '../lifecycle/ledger-check.js';
import { isSubjectReference, requestErasure, SUBJECT_MAX } from '../operations/erasures.js';
import { LedgerError, LedgerUnavailableError } from '../store/ledger/index.js';
import { modeOption, requireUuid, UsageError } from './arguments.js';
import { print } from './output.js';
import { ORIGIN, withStore } from './store.js';

const badSubject = () => new UsageError(`--subject must be 1 to ${SUBJECT_MAX} characters`);

/** `healthspan-admin subjects`: a partner's subjects; `erase` requests an erasure (see `erasures`). */
export function addSubjectsCommands(program: Command): void {
  const subjects = program.command('subjects').description("A partner's subjects (de-identified references)");
  subjects
    .command('erase')
    .description('Erase everything stored about a subject in an account (as DELETE /v1/subjects/{id} does)')
    .requiredOption('--tenant <tenantId>', 'the account')
    .requiredOption('--subject <partnerSubjectId>', 'the partnerSubjectId its submissions carried')
    .addOption(modeOption('subject'))
    .action(async (opts: { tenant: string; subject: string; mode: ApiMode }) => {
      const tenantId = requireUuid(opts.tenant, '--tenant');
      if (!isSubjectReference(opts.subject)) throw badSubject();
      print(
        await withStore(async (s, store) => {
          // A database behind its ledger would record this erasure past the ones it misses.
          const verdict = await compareLedger(s.ledger);
          if (verdict.kind === 'broken') throw new LedgerError(verdict.message);
          if (!settled(verdict)) throw new LedgerError(refusalOf(verdict));
          const scoped = await s.accounts.tenantForMode(tenantId, opts.mode);
          const requested = await requestErasure(store.forTenant(scoped).erasures, opts.subject, ORIGIN);
          if (!requested.ok && requested.reason === 'ledger_unavailable') {
            throw new LedgerUnavailableError(requested.operatorMessage);
          }
          if (!requested.ok) throw badSubject();
          return requested.erasure;
        }),
      );
    });
}
