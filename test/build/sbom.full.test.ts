import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';

/**
 * `npm run sbom` (docs/security.md) writes a CycloneDX document of the production dependencies
 * that the CycloneDX 1.6 JSON schema accepts, checked here by Ajv apart from the tool's own check:
 * every production package in it, no development one.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const require = createRequire(import.meta.url);
const SCHEMAS = path.join(
  path.dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')),
  'res/schema',
);

interface Bom {
  bomFormat: string;
  specVersion: string;
  metadata: { component: { name: string } };
  components: Array<{ name: string; group?: string; version: string; purl: string }>;
}

/** The schema files as the library ships them, their references to each other under their published names. */
function schemaValidator() {
  const read = (name: string) =>
    JSON.parse(
      fs.readFileSync(path.join(SCHEMAS, name), 'utf8').replaceAll('.SNAPSHOT.schema.json', '.schema.json'),
    ) as Record<string, unknown>;
  const ajv = new Ajv({ strict: false });
  addFormats.default(ajv);
  ajv.addSchema(read('spdx.SNAPSHOT.schema.json'));
  ajv.addSchema(read('jsf-0.82.SNAPSHOT.schema.json'));
  return ajv.compile(read('bom-1.6.SNAPSHOT.schema.json'));
}

describe('npm run sbom', () => {
  it('writes a CycloneDX 1.6 document of the production dependencies that the schema accepts', () => {
    const file = path.join(ROOT, 'sbom.cdx.json');
    fs.rmSync(file, { force: true });
    execFileSync('npm', ['run', 'sbom', '--silent'], { cwd: ROOT, stdio: 'pipe' });
    const bom = JSON.parse(fs.readFileSync(file, 'utf8')) as Bom;
    const validate = schemaValidator();
    expect(validate(bom), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
    expect(bom.bomFormat).toBe('CycloneDX');
    expect(bom.specVersion).toBe('1.6');
    expect(bom.metadata.component.name).toBe('healthspan');
    const names = new Set(bom.components.map((c) => (c.group ? `${c.group}/${c.name}` : c.name)));
    const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const name of Object.keys(manifest.dependencies)) expect(names, name).toContain(name);
    // What only builds and tests use (a development dependency may also come in through a
    // production one, as @types/node does through the pg instrumentation).
    for (const name of ['vitest', 'typescript', '@biomejs/biome', 'playwright-core', 's3rver', 'pdfkit']) {
      expect(Object.keys(manifest.devDependencies)).toContain(name);
      expect(names, name).not.toContain(name);
    }
  });
});
