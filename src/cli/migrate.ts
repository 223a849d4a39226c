import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { print } from './output.js';
import { openStore } from './store.js';

/** `healthspan-admin migrate`: creates the store when there is none. */
export function addMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations')
    .action(async () => {
      const store = await openStore(loadConfig());
      try {
        print(await store.migrate());
      } finally {
        await store.close();
      }
    });
}
