import type { Command } from 'commander';
import { NotFoundError } from '../store/repositories/accounts.js';
import { requireUuid } from './arguments.js';
import { print } from './output.js';
import { withStore } from './store.js';

/** `healthspan-admin erasures`: the erasures `subjects erase` (or the API) requested. */
export function addErasuresCommands(program: Command): void {
  const erasures = program.command('erasures').description('Erasures of subjects');
  erasures
    .command('show <erasureId>')
    .description('An erasure: its subject, status and what it removed')
    .action(async (erasureId: string) => {
      const id = requireUuid(erasureId, 'ERASURE_ID');
      const erasure = await withStore((s) => s.erasures.find(id));
      if (!erasure) throw new NotFoundError('erasure', id);
      print(erasure);
    });
}
