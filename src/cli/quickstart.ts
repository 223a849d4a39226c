import type { Command } from 'commander';
import { requireName } from './arguments.js';
import { createKey } from './keys.js';
import { print } from './output.js';
import { withStore } from './store.js';

/** `healthspan-admin quickstart`: an account, a partner credential and a key; creates the store if need be. */
export function addQuickstartCommand(program: Command): void {
  program
    .command('quickstart')
    .description('Create an account, a partner credential and an API key in one step')
    .option('--name <name>', 'account and partner name', 'Quickstart')
    .action(async (opts: { name: string }) => {
      const name = requireName(opts.name);
      const out = await withStore(
        async (s) => {
          const tenant = await s.accounts.createTenant(name);
          const partner = await s.accounts.createPartner(tenant.tenantId, name);
          const key = await createKey(s, partner.partnerId, undefined);
          return {
            tenantId: tenant.tenantId,
            partnerId: partner.partnerId,
            keyId: key.keyId,
            apiKey: key.apiKey,
          };
        },
        { create: true },
      );
      print(out);
    });
}
