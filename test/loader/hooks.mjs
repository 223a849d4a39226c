// Node module hooks (see register.mjs): `./x.js` names `./x.ts` (or `.cjs` a `.cts`) when only
// the source is there, as in the sources' own imports; `.ts` and `.cts` files of this repository
// are loaded with their types stripped (vite's oxc transform, which vitest itself uses).
import { readFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { transformWithOxc } from 'vite';

const ROOT = new URL('../../', import.meta.url).href;
const SOURCE = { '.js': '.ts', '.cjs': '.cts', '.mjs': '.mts' };

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    const ext = /\.[cm]?js$/.exec(specifier)?.[0];
    const path = /^(\.|\/|file:)/.test(specifier);
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !ext || !path) throw error;
    const base = context.parentURL ?? pathToFileURL(`${process.cwd()}/`).href;
    const source = new URL(specifier.slice(0, -ext.length) + SOURCE[ext], base).href;
    if (!source.startsWith(ROOT) || source.includes('/node_modules/')) throw error;
    return next(source, context);
  }
}

export async function load(url, context, next) {
  if (!url.startsWith(ROOT) || url.includes('/node_modules/') || !/\.[cm]?ts$/.test(url)) {
    return next(url, context);
  }
  const file = fileURLToPath(url);
  const { code } = await transformWithOxc(await readFile(file, 'utf8'), file, { lang: 'ts' });
  return { format: url.endsWith('.cts') ? 'commonjs' : 'module', source: code, shortCircuit: true };
}
