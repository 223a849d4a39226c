import { randomBytes } from 'node:crypto';
import type { TestProject } from 'vitest/node';
import { checkPostgres, dropRunDatabases } from './database.js';

/**
 * Global setup of the postgres project: the run FAILS when PostgreSQL does not answer (a skipped
 * store would pass unnoticed), each run names its databases after its own id, and whatever a
 * run leaves behind is dropped at its end.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await checkPostgres();
  const runId = randomBytes(4).toString('hex');
  project.provide('testRunId', runId);
  return async () => {
    await dropRunDatabases(runId);
  };
}
