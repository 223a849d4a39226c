import { describe, expect, it } from 'vitest';
import { checkStoredSubmission, checkSubmission } from '../../src/ingest/check.js';
import { readHeaders } from '../../src/ingest/headers.js';
import { settleHeldKey } from '../../src/ingest/idempotency.js';
import { example, NOW } from '../domain/submission-fixture.js';

const PARTNER = String(example().partnerId);
const at = { now: NOW, namedPartnerId: PARTNER };
const accepted = {
  submissionId: '0195f3a0-6c1e-7a3b-8e2f-1d2c3b4a5e6f',
  jobId: '0195f3a0-6c1e-7a3b-8e2f-1d2c3b4a5e70',
  partnerSubmissionId: 'sub-1',
  partnerSubjectId: 'subj-1',
  receivedAt: NOW.toISOString(),
};

describe('the headers of a submission, read by their schema', () => {
  const valid = { 'x-correlation-id': ' corr 1 ', 'idempotency-key': 'key-1' };

  it('keeps the values as sent, the first of a repeated one', () => {
    expect(readHeaders({ ...valid, 'idempotency-key': ['key-1', 'key-2'] as unknown as string })).toEqual({
      ok: true,
      value: { 'x-correlation-id': ' corr 1 ', 'idempotency-key': 'key-1' },
    });
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['only spaces', '   '],
    ['only spaces, and too long', ' '.repeat(300)],
  ])('says a %s header is required, once per header', (_case, value) => {
    expect(readHeaders({ 'x-correlation-id': value, 'idempotency-key': value })).toEqual({
      ok: false,
      fieldErrors: {
        'headers.x-correlation-id': ['The x-correlation-id header is required and must not be empty.'],
        'headers.idempotency-key': ['The idempotency-key header is required and must not be empty.'],
      },
    });
  });

  it('takes 255 characters and refuses 256', () => {
    expect(readHeaders({ ...valid, 'idempotency-key': 'k'.repeat(255) }).ok).toBe(true);
    expect(readHeaders({ ...valid, 'idempotency-key': 'k'.repeat(256) })).toEqual({
      ok: false,
      fieldErrors: {
        'headers.idempotency-key': ['The idempotency-key header must be at most 255 characters.'],
      },
    });
  });
});

describe('the checks a submission passes, at the door and in the worker', () => {
  it('normalises a valid body into the object the steps use and the text stored', () => {
    const checked = checkSubmission(example(), at);
    if (!checked.ok) throw new Error(JSON.stringify(checked.refusal));
    expect(checked.normalisedBody).toBe(JSON.stringify(checked.submission));
    expect(checked.submission.markers).toHaveLength(14);
  });

  it('reports header problems together with the schema’s, headers first', () => {
    const headerErrors = {
      'headers.idempotency-key': ['The idempotency-key header is required and must not be empty.'],
    };
    const body = example();
    delete body.partnerSubjectId;
    const checked = checkSubmission(body, at, headerErrors);
    expect(checked.ok).toBe(false);
    if (checked.ok || checked.refusal.reason !== 'invalid') throw new Error('expected invalid');
    expect(Object.keys(checked.refusal.details.fieldErrors)).toEqual([
      'headers.idempotency-key',
      'partnerSubjectId',
    ]);
    // With a valid body, the headers alone.
    expect(checkSubmission(example(), at, headerErrors)).toEqual({
      ok: false,
      refusal: { reason: 'invalid', details: { formErrors: [], fieldErrors: headerErrors } },
    });
  });

  it('checks the schema, then the partner (in any case), then the panel', () => {
    const otherPartner = { ...at, namedPartnerId: '11111111-2222-4333-8444-555555555555' };
    expect(checkSubmission(example(), { ...at, namedPartnerId: PARTNER.toUpperCase() }).ok).toBe(true);
    expect(checkSubmission(example(), otherPartner)).toEqual({ ok: false, refusal: { reason: 'partner' } });
    const badPanel = example();
    (badPanel.markers as unknown[]).pop();
    expect(checkSubmission(badPanel, otherPartner)).toEqual({ ok: false, refusal: { reason: 'partner' } });
    const panel = checkSubmission(badPanel, at);
    expect(!panel.ok && panel.refusal.reason).toBe('panel');
    const badSchema = { ...badPanel, subject: 'none' };
    expect(
      !checkSubmission(badSchema, otherPartner).ok && checkSubmission(badSchema, otherPartner),
    ).toMatchObject({
      refusal: { reason: 'invalid' },
    });
  });

  it('reads a stored body with the door’s reader: what it does not take is unreadable', () => {
    const text = JSON.stringify(example());
    expect(checkStoredSubmission(`\ufeff${text}`, at).ok).toBe(true);
    expect(checkStoredSubmission(`{"a":1,"a":2}`, at)).toEqual({
      ok: false,
      refusal: { reason: 'unreadable' },
    });
    expect(checkStoredSubmission('{}', at)).toMatchObject({ ok: false, refusal: { reason: 'invalid' } });
  });
});

describe('a request whose idempotency key another holds', () => {
  it('replays the same bytes without reading the stored body', () => {
    expect(
      settleHeldKey({ erased: false, sameRequest: true, originalBody: null, accepted }, { any: 1 }),
    ).toEqual({
      kind: 'replayed',
      accepted,
    });
  });

  it('replays the same JSON value sent with other bytes (key order, whitespace), and nothing else', () => {
    const held = {
      erased: false as const,
      sameRequest: false,
      originalBody: '{"a": 1, "b": [1, 2]}',
      accepted,
    };
    expect(settleHeldKey(held, { b: [1, 2], a: 1 }).kind).toBe('replayed');
    expect(settleHeldKey(held, { b: [2, 1], a: 1 }).kind).toBe('mismatch');
    expect(settleHeldKey({ ...held, originalBody: 'not json' }, { a: 1 }).kind).toBe('mismatch');
  });

  it('never replays an erased submission', () => {
    expect(settleHeldKey({ erased: true }, {})).toEqual({ kind: 'erased' });
  });
});
