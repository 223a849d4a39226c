import { describe, expect, it } from 'vitest';
import { checkPanel, parseSubmission } from '../../src/domain/submission/index.js';
import { waitUntil } from '../helpers/pipeline.js';
import { bodyFor, getJson, serviceWithAccount } from '../helpers/service.js';
import { ingestCommand } from '../helpers/store.js';

/**
 * The worker checks a submission again at the instant the door checked it (issue 12: nothing
 * acknowledged may be rejected later for a reason the door could have seen). An age derived
 * from `birthYear` changes at New Year: checked at 23:59:59.999 on 31 December, a birth year
 * 120 years back is valid; a millisecond later it is not.
 */
const ctx = serviceWithAccount();

describe('the door and the worker check at the same instant', () => {
  it('completes a submission accepted a millisecond before a New Year that would change its age', async () => {
    const receivedAt = new Date('2025-12-31T23:59:59.999Z');
    const body = bodyFor(ctx.account, (b) => {
      delete b.subject.demographics.ageYears;
      b.subject.demographics.birthYear = 1905;
      delete b.sourceMetadata.sourceTimestamp;
      delete b.subject.history.smoking;
    });
    const atDoor = parseSubmission(body, { now: receivedAt });
    expect(atDoor.ok).toBe(true);
    expect(parseSubmission(body, { now: new Date('2026-01-01T00:00:00.000Z') }).ok).toBe(false);
    const panel = atDoor.ok ? checkPanel(atDoor.value) : undefined;
    if (!panel?.ok) throw new Error('the example panel must pass');

    const text = JSON.stringify(body);
    const outcome = await ctx.service.store.system.ingest.ingest(
      ingestCommand(ctx.account, {
        idempotencyKeyHash: `new-year-${Math.random()}`,
        requestHash: 'new-year',
        originalBody: text,
        normalisedBody: JSON.stringify(panel.value),
        partnerSubmissionId: body.partnerSubmissionId,
        partnerSubjectId: body.partnerSubjectId,
        receivedAt,
      }),
    );
    if (outcome.kind !== 'created') throw new Error('unexpected: the key was taken');
    expect(outcome.receivedAt).toBe(receivedAt.toISOString());

    const detail = await waitUntil(
      async () => {
        const r = await getJson(ctx.service, `/v1/submissions/${outcome.submissionId}`, {
          'x-api-key': ctx.account.apiKey,
        });
        return ['completed', 'failed', 'rejected'].includes(r.json.status as string) && r.json;
      },
      30_000,
      'the submission to finish',
    );
    expect(detail.status, JSON.stringify(detail.jobs)).toBe('completed');
  });
});
