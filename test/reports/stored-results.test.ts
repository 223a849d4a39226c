import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { toPartnerOutcome } from '../../src/domain/model/partner-view.js';
import { MODEL_VERSION, type ModelResult } from '../../src/domain/model/types.js';
import type { NormalisedSubmission } from '../../src/domain/submission/panel.js';
import { renderAll } from '../../src/pipeline/render-all.js';
import type { RenderSource } from '../../src/pipeline/render-types.js';
import { buildFhirBundle } from '../../src/reports/fhir/bundle.js';
import { ROOT } from './fixtures.js';

/**
 * A result scored under model 1.0.0 keeps its numbers, wording and version whenever it is read or
 * its artifacts are rendered again (model-v1.1 §2): what the 1.0.0 service made from it, byte for
 * byte (test/fixtures/model-1.0.0/README.md says how it was captured).
 */
const DIR = path.join(ROOT, 'test/fixtures/model-1.0.0');
const file = (name: string) => readFileSync(path.join(DIR, name));
const source = JSON.parse(file('source.json').toString('utf8')) as RenderSource;
const bundle = JSON.parse(source.bundle) as ModelResult;
const submission = JSON.parse(source.normalisedBody) as NormalisedSubmission;

describe('a result stored under model 1.0.0', () => {
  it('is a 1.0.0 result whose memory outcome looks 14 years ahead (the fixture is what it says)', () => {
    expect(MODEL_VERSION).not.toBe('1.0.0');
    expect(bundle.model.version).toBe('1.0.0');
    const memory = bundle.outcomes.find((o) => o.outcomeId === 'wellbeing.cognitive')!;
    expect(memory.horizonYears).toBe(14);
    expect(memory.notices.join(' ')).toMatch(/looks 14 years ahead/);
  });

  it('renders json, html and pdf again byte for byte as the 1.0.0 service did', async () => {
    const rendered = await renderAll(source, ['json', 'html', 'pdf']);
    expect(rendered.map(([type]) => type)).toEqual(['json', 'html', 'pdf']);
    for (const [type, artifact] of rendered) {
      const before = file(`report.${artifact.fileExtension}`);
      if (type === 'pdf') expect(artifact.body.equals(before), 'pdf bytes').toBe(true);
      else expect(artifact.body.toString('utf8')).toBe(before.toString('utf8'));
    }
  });

  it('reads as the same outcomes a partner read, and exports the same FHIR document', () => {
    expect(bundle.outcomes.map(toPartnerOutcome)).toEqual(
      JSON.parse(file('partner-outcomes.json').toString()),
    );
    const fhir = buildFhirBundle({
      resultId: source.resultId,
      partnerId: submission.partnerId,
      partnerSubjectId: submission.partnerSubjectId,
      receivedAt: source.receivedAt,
      submission,
      result: bundle,
    });
    expect(fhir).toEqual(JSON.parse(file('fhir.json').toString()));
  });
});
