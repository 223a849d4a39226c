import path from 'node:path';
import { Command, CommanderError } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { BackupError } from '../lifecycle/backup.js';
import { LedgerError, LedgerUnavailableError } from '../store/ledger/index.js';
import { DatabaseNotOursError } from '../store/migrate.js';
import { DatabaseUnavailableError } from '../store/postgres/connect-failure.js';
import { NoSandboxError, NotFoundError } from '../store/repositories/accounts.js';
import { StoreDamagedError, storeDamaged } from '../store/sqlite/damaged.js';
import { VERSION } from '../version.js';
import { WebhookAdminError } from '../webhooks/admin.js';
import { UsageError } from './arguments.js';
import { addAuditCommands } from './audit.js';
import { addBackupCommands } from './backup.js';
import { addConfigCommand } from './config.js';
import { addConsoleCommands } from './console.js';
import { addDoctorCommand } from './doctor.js';
import { addErasuresCommands } from './erasures.js';
import { addKeysCommands } from './keys.js';
import { addMigrateCommand } from './migrate.js';
import { addPartnersCommands } from './partners.js';
import { addQuickstartCommand } from './quickstart.js';
import { addServeCommand } from './serve.js';
import { addSubjectsCommands } from './subjects.js';
import { addTenantsCommands } from './tenants.js';
import { addWebhooksCommands } from './webhooks.js';

/**
 * The `healthspan-admin` program: each command group is added from its own file. Groups are added with
 * `program.command(…)` inside those files, not `addCommand`, so every subcommand inherits the
 * program's settings (`exitOverride`, `showHelpAfterError`); the order here is the help's order.
 */
export function buildCli(): Command {
  const program = new Command('healthspan-admin')
    .description('Operate healthspan: accounts, partner credentials, API keys and the server')
    .version(VERSION, '-V, --version', 'print the version')
    .showHelpAfterError()
    .exitOverride();
  addServeCommand(program);
  addMigrateCommand(program);
  addDoctorCommand(program);
  addConfigCommand(program);
  addTenantsCommands(program);
  addSubjectsCommands(program);
  addErasuresCommands(program);
  addBackupCommands(program);
  addAuditCommands(program);
  addPartnersCommands(program);
  addKeysCommands(program);
  addWebhooksCommands(program);
  addConsoleCommands(program);
  addQuickstartCommand(program);
  return program;
}

/** DATA_DIR as the command read it, for a sentence about the embedded store. */
function dataDirOf(): string {
  try {
    return path.resolve(loadConfig().dataDir);
  } catch {
    return path.resolve(process.env.DATA_DIR ?? './data');
  }
}

export async function runCli(argv: string[]): Promise<number> {
  const program = buildCli();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already written its message (or help) to stderr.
      return error.exitCode === 0 ? 0 : 1;
    }
    const known = storeDamaged(error, dataDirOf()) ?? error;
    const message =
      known instanceof StoreDamagedError ||
      known instanceof LedgerUnavailableError ||
      error instanceof DatabaseNotOursError ||
      error instanceof UsageError ||
      error instanceof NotFoundError ||
      error instanceof NoSandboxError ||
      error instanceof ConfigError ||
      error instanceof BackupError ||
      error instanceof LedgerError ||
      error instanceof DatabaseUnavailableError ||
      error instanceof WebhookAdminError
        ? (known as Error).message
        : `unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
    process.stderr.write(`healthspan-admin: ${message}\n`);
    return 1;
  }
}
