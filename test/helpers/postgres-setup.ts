import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { checkPostgres, dropRunDatabases } from './database.js';

/**
 * Global setup of the postgres project: the run FAILS when PostgreSQL does not answer (a skipped
 * store would pass unnoticed), each run names its databases after its own id, and whatever a
 * run leaves behind is dropped at its end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await checkPostgres().catch((error: unknown) => {
    throw new Error(
      `${error instanceof Error ? error.message : String(error)}. The postgres tests need it (docs/postgresql.md); ` +
        'start PostgreSQL (.ci/run does), or run the others alone: npx vitest run --project unit --project sqlite',
    );
  });
  const runId = randomBytes(4).toString('hex');
  project.provide('testRunId', runId);
  return async () => {
    await dropRunDatabases(runId);
  };
}
