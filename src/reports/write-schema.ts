import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import { reportSchema } from './schema.js';

/**
 * Publishes the report model's JSON Schema (draft 2020-12) at docs/schemas/report.schema.json.
 * Run `node dist/reports/write-schema.js` after a build when schema.ts changes; a test fails
 * while the committed file differs from what the schema generates. The file is laid out by the
 * project's formatter (biome), which `npm run lint` applies to every JSON file.
 */

/** Repository root, the same from src/reports (tests) and dist/reports (built). */
const ROOT = path.resolve(import.meta.dirname, '../..');

export const REPORT_SCHEMA_FILE = path.join(ROOT, 'docs/schemas/report.schema.json');

export function reportJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(reportSchema, { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
}

/** The file's exact text: two-space JSON with a trailing newline. */
export function reportJsonSchemaText(): string {
  return `${JSON.stringify(reportJsonSchema(), null, 2)}\n`;
}

export function writeReportSchema(file: string = REPORT_SCHEMA_FILE): string {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, reportJsonSchemaText());
  const biome = path.join(ROOT, 'node_modules/.bin/biome');
  if (existsSync(biome)) execFileSync(biome, ['format', '--write', file], { stdio: 'ignore' });
  return file;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.stdout.write(`${writeReportSchema()}\n`);
}
