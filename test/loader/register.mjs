// Lets Node run this repository's TypeScript sources in the threads a test starts (the SQLite
// writer thread, the render threads): vitest runs the tests from sources through its own module
// runner, which a worker thread does not have. vitest passes `--import` of this file to its
// processes (vitest.config.ts `execArgv`), and worker threads inherit it.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
