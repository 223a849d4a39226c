import { describe, expect, it } from 'vitest';
import { scoreSubmission } from '../../src/domain/model/index.js';
import type { NormalisedSubmission } from '../../src/domain/submission/index.js';
import { checkSubmission } from '../../src/ingest/check.js';
import { renderAll } from '../../src/pipeline/render-all.js';
import type { RenderSource } from '../../src/pipeline/render-types.js';
import { example, NOW } from '../domain/submission-fixture.js';

/**
 * A chained run parses the normalised submission once and the score and render steps share the
 * object (src/pipeline/steps/handover.ts): neither may alter it, or the second step would work
 * from something else than a cold start parses. Frozen, any write throws (modules are strict).
 */

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const item of Object.values(value)) deepFreeze(item);
    Object.freeze(value);
  }
  return value;
}

function normalisedText(): string {
  const checked = checkSubmission(example(), { now: NOW, namedPartnerId: String(example().partnerId) });
  if (!checked.ok) throw new Error('the example does not pass the checks');
  return checked.normalisedBody;
}

describe('the submission a chained run shares between its steps', () => {
  it('is only read by the model and the reports, which give what they give from the text alone', async () => {
    const text = normalisedText();
    const shared = deepFreeze(JSON.parse(text) as NormalisedSubmission);
    const bundle = scoreSubmission(shared, { now: NOW });
    expect(bundle).toEqual(scoreSubmission(JSON.parse(text) as NormalisedSubmission, { now: NOW }));
    const source: RenderSource = {
      resultId: '0195f3a0-6c1e-7a3b-8e2f-1d2c3b4a5e6f',
      submissionId: '0195f3a0-6c1e-7a3b-8e2f-1d2c3b4a5e70',
      receivedAt: NOW.toISOString(),
      normalisedBody: text,
      bundle: JSON.stringify(bundle),
    };
    const fromObject = await renderAll({ ...source, submission: shared }, ['json', 'html']);
    const fromText = await renderAll(source, ['json', 'html']);
    expect(fromObject.map(([type, r]) => [type, r.sha256])).toEqual(
      fromText.map(([type, r]) => [type, r.sha256]),
    );
    expect(JSON.stringify(shared)).toBe(text);
  });
});
