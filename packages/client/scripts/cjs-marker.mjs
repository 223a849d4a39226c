// dist/cjs holds CommonJS files with .js names: a package.json there says so to Node.
import fs from 'node:fs';

fs.writeFileSync(new URL('../dist/cjs/package.json', import.meta.url), '{"type":"commonjs"}\n');
