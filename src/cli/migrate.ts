import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { Store } from '../store/index.js';
import { print } from './output.js';

/** `healthspan migrate`: creates the store when there is none. */
export function addMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations')
    .action(async () => {
      const config = loadConfig();
      const store = Store.open(config);
      try {
        print(await store.migrate());
      } finally {
        await store.close();
      }
    });
}
