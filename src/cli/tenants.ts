import type { Command } from 'commander';
import { requireName, requireUuid, UsageError } from './arguments.js';
import { print } from './output.js';
import { ORIGIN, withStore } from './store.js';

/** `healthspan-admin tenants`: accounts. */
export function addTenantsCommands(program: Command): void {
  const tenants = program.command('tenants').description('Accounts');
  tenants
    .command('list')
    .description('Every account: id, name, active, created')
    .action(async () => {
      print({ tenants: await withStore((s) => s.accounts.listTenants()) });
    });
  tenants
    .command('create')
    .description('Create an account')
    .requiredOption('--name <name>', 'account name')
    .action(async (opts: { name: string }) => {
      const tenant = await withStore((s) => s.accounts.createTenant(requireName(opts.name)));
      print({ tenantId: tenant.tenantId, name: tenant.name, active: tenant.active });
    });
  for (const [command, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    tenants
      .command(`${command} <tenantId>`)
      .description(active ? 'Allow the account’s keys again' : 'Refuse every key of the account (403)')
      .action(async (tenantId: string) => {
        const id = requireUuid(tenantId, 'TENANT_ID');
        const tenant = await withStore((s) => s.accounts.setTenantActive(id, active, ORIGIN));
        print({ tenantId: tenant.tenantId, active: tenant.active });
      });
  }
  addSetRetention(tenants);
}

function addSetRetention(tenants: Command): void {
  tenants
    .command('set-retention <tenantId>')
    .description(
      "Erase the account's submissions this many days after receipt (0: keep until erased); --default follows RETENTION_DAYS",
    )
    .option('--days <n>', 'whole days, 0 to 36500')
    .option('--default', "follow the service's RETENTION_DAYS again")
    .action(async (tenantId: string, opts: { days?: string; default?: boolean }) => {
      const id = requireUuid(tenantId, 'TENANT_ID');
      if ((opts.days === undefined) === (opts.default !== true)) {
        throw new UsageError('give exactly one of --days <n> or --default');
      }
      let days: number | null = null;
      if (opts.days !== undefined) {
        days = Number(opts.days);
        if (!/^\d+$/.test(opts.days) || days > 36_500) {
          throw new UsageError('--days must be a whole number from 0 to 36500');
        }
      }
      print(await withStore((s) => s.accounts.setRetention(id, days)));
    });
}
