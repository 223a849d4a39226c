import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config.js';
import { overrideLedger } from '../lifecycle/ledger-override.js';
import { replayErasures } from '../lifecycle/replay.js';
import { createLogger } from '../logger.js';
import { readErasure } from '../operations/erasures.js';
import { NotFoundError } from '../store/repositories/accounts.js';
import { requireUuid, UsageError } from './arguments.js';
import { print } from './output.js';
import { ORIGIN, withStore } from './store.js';

/** `healthspan-admin erasures`: the erasures `subjects erase` (or the API) requested. */
export function addErasuresCommands(program: Command): void {
  const erasures = program.command('erasures').description('Erasures of subjects');
  erasures
    .command('show <erasureId>')
    .description('An erasure: its subject, status and what it removed')
    .action(async (erasureId: string) => {
      const id = requireUuid(erasureId, 'ERASURE_ID');
      const erasure = await withStore((s) => readErasure(id, (found) => s.erasures.find(found)));
      if (!erasure) throw new NotFoundError('erasure', id);
      print(erasure);
    });
  erasures
    .command('replay')
    .description(
      'Erase again, from the erasure ledger, every subject erased since the database was backed up (after a restore)',
    )
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel, process.stderr);
      const leaseMs = config.jobLeaseSeconds * 1000;
      print(
        await withStore((_s, store) =>
          replayErasures(store, { clock: systemClock, logger, origin: ORIGIN, leaseMs }),
        ),
      );
    });
  erasures
    .command('override-ledger')
    .description(
      'Start the erasure ledger again when it is lost or damaged (audited): erasures only it recorded cannot be replayed',
    )
    .option('--confirm', 'say that you accept this')
    .action(async (opts: { confirm?: boolean }) => {
      if (!opts.confirm) {
        throw new UsageError(
          'override-ledger gives up replaying what the lost ledger recorded; run it again with --confirm if you accept that (docs/backup.md)',
        );
      }
      const logger = createLogger(loadConfig().logLevel, process.stderr);
      print(await withStore((s) => overrideLedger(s, { origin: ORIGIN, now: systemClock(), logger })));
    });
}
