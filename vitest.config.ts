import os from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Tests that open a store: they run once per store (the `sqlite` and `postgres` projects). A test
 * of pure code in these folders (`test/` mirrors `src/`) is named `*.unit.test.ts` and runs once,
 * in the `unit` project.
 */
const INTEGRATION = [
  'http',
  'pipeline',
  'queue',
  'store',
  'cli',
  'webhooks',
  'readme',
  'lifecycle',
  'telemetry',
].map((d) => `test/${d}/**/!(*.unit).test.ts`);
/**
 * What only PostgreSQL has: several connections racing, LISTEN/NOTIFY, a server that goes away;
 * and whole processes under faults (test/scale: 2 API + 2 workers at scale; a private cluster restarted mid-load).
 */
const POSTGRES_ONLY = ['test/postgres/**/*.test.ts', 'test/scale/**/*.test.ts'];
/**
 * What only SQLite has: its planner, which keeps no statistics (checked against the shape of a
 * statement), and the embedded store's own backups (`backup create`, `verify`, `restore`).
 */
const SQLITE_ONLY = ['test/sqlite/**/*.test.ts'];
/** The driver conformance cases: both drivers in one run (River's `riverdrivertest`). */
const DRIVERS = ['test/drivers/**/*.test.ts'];

/**
 * Left out of `npm run test:fast` (HEALTHSPAN_TEST_TIER=fast), run by `npm test`, and plain from
 * a test's name or folder: `*-browser.test.ts` (Chromium), `*.full.test.ts` (poppler, Prometheus,
 * the built CLI or server in processes of their own, the packed client, real retry schedules or
 * rate-limit windows), and the folders that are all of that kind: `cli/` (the built CLI),
 * `readme/` (the README's commands), `ops/` (promtool) and `reports/pdf-reference/` (poppler).
 * The fast tier then needs nothing installed beyond the project's own packages and PostgreSQL
 * (for `drivers`), and stays under five minutes on a busy 2-core machine (docs/architecture.md).
 */
const FULL_ONLY = [
  'test/**/*-browser.test.ts',
  'test/**/*.full.test.ts',
  'test/cli/**/*.test.ts',
  'test/readme/**/*.test.ts',
  'test/ops/**/*.test.ts',
  'test/reports/pdf-reference/**/*.test.ts',
];
const TIER_EXCLUDE = process.env.HEALTHSPAN_TEST_TIER === 'fast' ? FULL_ONLY : [];

/**
 * The integration suite once more on PostgreSQL with the report bytes in an object store
 * (s3rver, ARTIFACT_STORE), when HEALTHSPAN_TEST_S3_SUITE=1 asks for it: `npm test` (and so CI)
 * sets it; a file run by hand runs on the two stores alone (docs/object-storage.md).
 */
const OBJECT_STORE_SUITE = process.env.HEALTHSPAN_TEST_S3_SUITE === '1';

/** Fails the run when a process it started outlives it (every project; checked once, at the end). */
const LEFTOVERS = 'test/helpers/leftover-processes.ts';

export default defineConfig({
  test: {
    // A generous overall deadline: tests wait on conditions, each with its own deadline (up to
    // 30 s, a few in a row), and on a loaded machine a correct test may take a while. A test
    // that hangs still fails, with the message of the condition it was waiting for.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two files at a time on any machine (vitest's default is cores − 1: one file at a time on
    // two cores). Most files wait on servers, processes and the disk rather than compute, and
    // every test waits on conditions, never a fixed time, so two share a busy machine well.
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    // Threads a test starts (the SQLite writer, the render pool) find their entry beside the
    // module that starts them, a `.ts` file here: this loader lets Node run it (test/loader/).
    execArgv: ['--import', new URL('./test/loader/register.mjs', import.meta.url).href],
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          globalSetup: [LEFTOVERS],
          include: ['test/**/*.test.ts'],
          exclude: [
            ...configDefaults.exclude,
            ...INTEGRATION,
            ...POSTGRES_ONLY,
            ...SQLITE_ONLY,
            ...DRIVERS,
            ...TIER_EXCLUDE,
          ],
        },
      },
      {
        extends: true,
        test: {
          name: 'drivers',
          include: DRIVERS,
          exclude: [...configDefaults.exclude, ...TIER_EXCLUDE],
          // PostgreSQL must answer: these cases never skip a driver.
          globalSetup: ['test/helpers/postgres-setup.ts', LEFTOVERS],
        },
      },
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: [...INTEGRATION, ...SQLITE_ONLY],
          exclude: [...configDefaults.exclude, ...TIER_EXCLUDE],
          env: { HEALTHSPAN_TEST_STORE: 'sqlite' },
          globalSetup: [LEFTOVERS],
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: [...INTEGRATION, ...POSTGRES_ONLY],
          env: { HEALTHSPAN_TEST_STORE: 'postgres' },
          // Fails the run when PostgreSQL does not answer: these tests never skip.
          globalSetup: ['test/helpers/postgres-setup.ts', LEFTOVERS],
        },
      },
      ...(OBJECT_STORE_SUITE
        ? [
            {
              extends: true,
              test: {
                name: 'postgres-s3',
                include: INTEGRATION,
                env: { HEALTHSPAN_TEST_STORE: 'postgres', HEALTHSPAN_TEST_ARTIFACTS: 's3' },
                globalSetup: ['test/helpers/postgres-setup.ts', 'test/helpers/s3-setup.ts', LEFTOVERS],
              },
            },
          ]
        : []),
    ],
  },
});
