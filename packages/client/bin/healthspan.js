#!/usr/bin/env node
// `healthspan listen`, built into dist/. This file is committed so that it exists when npm links
// the package's command: npm skips a command whose file is missing, and in this repository the
// workspace is linked before `npm ci` builds dist/ (then `npx healthspan` found no command here).
import('../dist/esm/bin/healthspan.js').catch((error) => {
  if (
    error?.code === 'ERR_MODULE_NOT_FOUND' &&
    String(error.message).includes('dist/esm/bin/healthspan.js')
  ) {
    process.stderr.write('healthspan: not built yet; run `npm run build` in the repository first\n');
    process.exit(1);
  }
  throw error;
});
