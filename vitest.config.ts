import { configDefaults, defineConfig } from 'vitest/config';

/** Tests that open a store: they run once per store (the `sqlite` and `postgres` projects). */
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
  'console',
].map((d) => `test/${d}/**/*.test.ts`);
/**
 * What only PostgreSQL has: several connections racing, LISTEN/NOTIFY, a server that goes away;
 * and whole processes under faults (test/scale: 2 API + 2 workers at scale; a private cluster restarted mid-load).
 */
const POSTGRES_ONLY = ['test/postgres/**/*.test.ts', 'test/scale/**/*.test.ts'];
/** What only SQLite has: its planner, which keeps no statistics (checked against the shape of a statement). */
const SQLITE_ONLY = ['test/sqlite/**/*.test.ts'];
/** The driver conformance cases: both drivers in one run (River's `riverdrivertest`). */
const DRIVERS = ['test/drivers/**/*.test.ts'];

/**
 * The integration suite once more on PostgreSQL with the report bytes in an object store
 * (s3rver, ARTIFACT_STORE): only when HEALTHSPAN_TEST_S3_SUITE=1 asks for it, since it is a
 * whole pass of the suite (docs/object-storage.md).
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
          exclude: [...configDefaults.exclude, ...INTEGRATION, ...POSTGRES_ONLY, ...SQLITE_ONLY, ...DRIVERS],
        },
      },
      {
        extends: true,
        test: {
          name: 'drivers',
          include: DRIVERS,
          // PostgreSQL must answer: these cases never skip a driver.
          globalSetup: ['test/helpers/postgres-setup.ts', LEFTOVERS],
        },
      },
      {
        extends: true,
        test: {
          name: 'sqlite',
          include: [...INTEGRATION, ...SQLITE_ONLY],
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
