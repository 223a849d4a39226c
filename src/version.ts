import fs from 'node:fs';

/** The service's version, from its package.json (the CLI's `--version`, metrics and traces). */
export const VERSION: string = (
  JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
