import type { Command } from 'commander';
import { AUDIT_ACTIONS, type AuditAction } from '../domain/audit.js';
import type { ApiMode } from '../domain/mode.js';
import { modeOption, requireLimit, requireUuid, UsageError } from './arguments.js';
import { print } from './output.js';
import { withStore } from './store.js';

/** `healthspan-admin audit`: the audit trail. */
export function addAuditCommands(program: Command): void {
  const audit = program.command('audit').description('The audit trail');
  audit
    .command('list')
    .description("An account's audit events, newest first")
    .requiredOption('--tenant <tenantId>', 'the account')
    .option('--since <time>', 'only events at or after this ISO-8601 time')
    .option('--action <action>', `only this action (${AUDIT_ACTIONS.join(', ')})`)
    .option('--limit <n>', 'events to show, 1 to 1000', '100')
    .addOption(modeOption('audit trail'))
    .action(
      async (opts: { tenant: string; since?: string; action?: string; limit: string; mode: ApiMode }) => {
        const tenantId = requireUuid(opts.tenant, '--tenant');
        const limit = requireLimit(opts.limit);
        const since = opts.since === undefined ? undefined : new Date(opts.since);
        if (since && Number.isNaN(since.getTime())) throw new UsageError('--since must be an ISO-8601 time');
        if (opts.action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(opts.action)) {
          throw new UsageError(`--action must be one of ${AUDIT_ACTIONS.join(', ')}`);
        }
        const action = opts.action as AuditAction | undefined;
        const page = await withStore(async (s) => {
          const scoped = await s.accounts.tenantForMode(tenantId, opts.mode);
          return s.audit.list(scoped, { limit, since, action });
        });
        print({ tenantId, mode: opts.mode, events: page.items });
      },
    );
}
