import path from 'node:path';
import { type Command, Option } from 'commander';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config.js';
import { BackupError, createBackup, verifyBackup } from '../lifecycle/backup.js';
import { restoreBackup } from '../lifecycle/restore.js';
import { createLogger } from '../logger.js';
import type { CopyMethod } from '../store/sqlite/backup-copy.js';
import { sqliteFile } from '../store/sqlite/driver.js';
import { print } from './output.js';
import { ORIGIN } from './store.js';

const POSTGRES =
  'on PostgreSQL, back up with its own tools (pg_dump, or pg_basebackup with WAL archiving) and restore with them, then run "healthspan-admin erasures replay" (docs/backup.md)';

/** `healthspan-admin backup`: copies of the embedded store, checked, and their restore. */
export function addBackupCommands(program: Command): void {
  const backup = program
    .command('backup')
    .description('Back up, check and restore the embedded (SQLite) store');
  backup
    .command('create')
    .description('Copy the store while the service runs, check the copy and write its manifest beside it')
    .requiredOption(
      '--to <path>',
      'the new backup file (it must not exist); the manifest is PATH.manifest.json',
    )
    .addOption(
      new Option('--method <method>', 'how the copy is taken')
        .choices(['online', 'vacuum'])
        .default('online'),
    )
    .action(async (opts: { to: string; method: CopyMethod }) => {
      const config = loadConfig();
      if (config.databaseUrl !== undefined) throw new BackupError(POSTGRES);
      print(
        await createBackup(sqliteFile(config.dataDir), path.resolve(opts.to), {
          method: opts.method,
          now: systemClock,
        }),
      );
    });
  backup
    .command('verify <path>')
    .description('Check a backup alone: its manifest, size, SHA-256, integrity and schema')
    .action(async (file: string) => {
      print({ verified: true, ...(await verifyBackup(path.resolve(file))) });
    });
  backup
    .command('restore <path>')
    .description('Put a backup in place of the store (service stopped), then replay the erasures made since')
    .action(async (file: string) => {
      const config = loadConfig();
      const logger = createLogger(config.logLevel, process.stderr);
      print(await restoreBackup(path.resolve(file), config, { clock: systemClock, logger, origin: ORIGIN }));
    });
}
