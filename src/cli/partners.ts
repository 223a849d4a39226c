import type { Command } from 'commander';
import { requireName, requireUuid } from './arguments.js';
import { print } from './output.js';
import { withStore } from './store.js';

/** `healthspan-admin partners`: partner credentials, each in one account. */
export function addPartnersCommands(program: Command): void {
  const partners = program.command('partners').description('Partner credentials');
  partners
    .command('list')
    .description('Partner credentials, of one account with --tenant')
    .option('--tenant <tenantId>', 'only this account')
    .action(async (opts: { tenant?: string }) => {
      const tenantId = opts.tenant === undefined ? undefined : requireUuid(opts.tenant, '--tenant');
      print({ partners: await withStore((s) => s.accounts.listPartners(tenantId)) });
    });
  partners
    .command('create')
    .description('Create a partner credential in an account')
    .requiredOption('--tenant <tenantId>', 'owning account')
    .requiredOption('--name <name>', 'partner name')
    .action(async (opts: { tenant: string; name: string }) => {
      const tenantId = requireUuid(opts.tenant, '--tenant');
      const partner = await withStore((s) => s.accounts.createPartner(tenantId, requireName(opts.name)));
      print({ partnerId: partner.partnerId, tenantId: partner.tenantId, name: partner.name });
    });
}
