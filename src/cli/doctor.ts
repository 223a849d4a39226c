import type { Command } from 'commander';
import { loadConfig } from '../config.js';
import { UsageError } from './arguments.js';
import { print } from './output.js';
import { openStore } from './store.js';

interface Check {
  ok: boolean;
  where: string;
  problem?: string;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * `healthspan-admin doctor`: whether this configuration's stores answer as the service needs them:
 * the database (reachable, migrated) and, with ARTIFACT_STORE, the object store (reachable, its
 * bucket there, a probe object written, read back and deleted). One JSON line; exit status 1,
 * with the first problem in one sentence, when one does not.
 */
export function addDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description('Check that the database and the object store (ARTIFACT_STORE) answer as the service needs')
    .action(async () => {
      const config = loadConfig();
      const store = await openStore(config, { existing: true });
      try {
        const ready = await store.isReady();
        const database: Check = {
          ok: ready.ok,
          where: store.describe,
          ...(ready.ok ? {} : { problem: `the database ${ready.reason ?? 'is unavailable'}` }),
        };
        const s3 = config.objectStore;
        const where = s3 ? `s3://${s3.bucket}/${s3.prefix}` : 'the database (artifact_contents)';
        const artifacts: Check = await store.system.artifacts.check().then(
          () => ({ ok: true, where }),
          (error: unknown) => ({ ok: false, where, problem: message(error) }),
        );
        print({ database, artifacts });
        const problem = [database, artifacts].find((c) => !c.ok)?.problem;
        if (problem !== undefined) throw new UsageError(problem);
      } finally {
        await store.close();
      }
    });
}
