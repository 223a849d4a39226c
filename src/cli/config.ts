import type { Command } from 'commander';
import { effectiveSettings } from '../effective-settings.js';
import { print } from './output.js';

/**
 * `healthspan-admin config`: every setting's effective value and whether it came from the
 * environment or its default, secrets masked; what an operator compares first when two
 * processes behave differently. Needs no store.
 */
export function addConfigCommand(program: Command): void {
  program
    .command('config')
    .description('Print every setting’s effective value and its source (env or default), secrets masked')
    .action(() => {
      print(effectiveSettings());
    });
}
