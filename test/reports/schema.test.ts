import { existsSync, readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { renderArtifact, renderJson } from '../../src/reports/index.js';
import { REPORT_SCHEMA_FILE, reportJsonSchema } from '../../src/reports/write-schema.js';
import { documentsOnlyReport, fullReport } from './fixtures.js';

/** docs/schemas/report.schema.json: generated from the zod schema and validating the json artifact. */

function validator() {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats.default(ajv);
  return ajv.compile(JSON.parse(readFileSync(REPORT_SCHEMA_FILE, 'utf8')) as object);
}

describe('report JSON Schema', () => {
  it('is committed exactly as the zod schema generates it (run `node dist/reports/write-schema.js`)', () => {
    expect(existsSync(REPORT_SCHEMA_FILE)).toBe(true);
    // Compared as JSON values: the file's layout is the formatter's.
    expect(JSON.parse(readFileSync(REPORT_SCHEMA_FILE, 'utf8'))).toEqual(reportJsonSchema());
  });

  it('is draft 2020-12', () => {
    const schema = JSON.parse(readFileSync(REPORT_SCHEMA_FILE, 'utf8')) as Record<string, unknown>;
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('accepts the json artifact of both fixtures', async () => {
    const validate = validator();
    for (const report of [fullReport(), documentsOnlyReport()]) {
      const artifact = await renderArtifact('json', report);
      expect(artifact.contentType).toBe('application/json; charset=utf-8');
      expect(artifact.fileExtension).toBe('json');
      const data: unknown = JSON.parse(artifact.body.toString('utf8'));
      expect(validate(data), JSON.stringify(validate.errors, null, 2)).toBe(true);
    }
  });

  it('rejects a report that breaks the contract', () => {
    const validate = validator();
    const broken = JSON.parse(renderJson(fullReport()).toString('utf8')) as Record<string, unknown>;
    broken.generatedAt = 'yesterday';
    (broken.outcomes as Array<Record<string, unknown>>)[0]!.score = 1.5;
    (broken.markers as { items: unknown[] }).items.pop();
    broken.extra = true;
    expect(validate(broken)).toBe(false);
    const paths = (validate.errors ?? []).map((e) => e.instancePath || e.params);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/generatedAt',
        '/outcomes/0/score',
        '/markers/items',
        { additionalProperty: 'extra' },
      ]),
    );
  });
});
