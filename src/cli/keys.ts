import { type Command, Option } from 'commander';
import { systemClock } from '../clock.js';
import { API_MODES, type ApiMode } from '../domain/mode.js';
import { issueOperatorKey, revokeOperatorKey } from '../operations/keys.js';
import type { SystemStore } from '../store/index.js';
import { durationOption, requireUuid, UsageError } from './arguments.js';
import { print } from './output.js';
import { ORIGIN, withStore } from './store.js';

/** Issues a key (`keys create`, `quickstart`): the key itself is in the answer, and only there. */
export async function createKey(
  store: SystemStore,
  partnerId: string,
  expiresIn: string | undefined,
  mode: ApiMode = 'live',
) {
  const lifetimeMs = expiresIn === undefined ? null : durationOption(expiresIn, '--expires-in');
  const issued = await issueOperatorKey(
    store.accounts,
    partnerId,
    { mode, lifetimeMs },
    { now: systemClock(), origin: ORIGIN },
  );
  if (!issued.ok) throw new UsageError('--expires-in must be longer than zero');
  return issued.key;
}

/** `healthspan-admin keys`: a partner credential's API keys. */
export function addKeysCommands(program: Command): void {
  const keys = program.command('keys').description('API keys (shown once, stored as a hash)');
  keys
    .command('list')
    .description("A partner credential's keys: id, prefix, created, expires, revoked (never the key)")
    .requiredOption('--partner <partnerId>', 'partner credential')
    .action(async (opts: { partner: string }) => {
      const partnerId = requireUuid(opts.partner, '--partner');
      print({ partnerId, keys: await withStore((s) => s.accounts.listKeys(partnerId)) });
    });
  keys
    .command('create')
    .description('Issue a key for a partner credential; printed once, stored as a hash')
    .requiredOption('--partner <partnerId>', 'partner credential the key belongs to')
    .option('--expires-in <duration>', 'lifetime such as 90d or 12h (default: no expiry)')
    .addOption(
      new Option('--mode <mode>', 'live (hs_live_…), or test (hs_test_…: sees test data only)')
        .choices(API_MODES)
        .default('live'),
    )
    .action(async (opts: { partner: string; expiresIn?: string; mode: ApiMode }) => {
      const partnerId = requireUuid(opts.partner, '--partner');
      print(await withStore((s) => createKey(s, partnerId, opts.expiresIn, opts.mode)));
    });
  keys
    .command('revoke <keyId>')
    .description('Refuse a key from now on (401); revoking twice keeps the first time')
    .action(async (keyId: string) => {
      const id = requireUuid(keyId, 'KEY_ID');
      print(await withStore((s) => revokeOperatorKey(s.accounts, id, ORIGIN)));
    });
}
