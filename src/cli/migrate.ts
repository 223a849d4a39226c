import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { maintenanceDatabase } from '../store/index.js';
import { print } from './output.js';
import { openStore } from './store.js';

/** `healthspan-admin migrate`: creates the store when there is none. */
export function addMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('Apply pending database migrations')
    .action(async () => {
      const config = loadConfig();
      const store = await openStore(config);
      // Once it answers: a warning about the database is no use before the failure to reach it.
      const maintenance = maintenanceDatabase(config.databaseUrl);
      if (maintenance) process.stderr.write(`healthspan-admin: warning: ${maintenance}\n`);
      try {
        print(await store.migrate());
      } finally {
        await store.close();
      }
    });
}
