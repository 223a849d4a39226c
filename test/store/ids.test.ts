import { validate, version } from 'uuid';
import { describe, expect, it } from 'vitest';
import { artifactIdFor, newId, resultIdFor, subjectIdFor } from '../../src/store/ids.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('derived ids', () => {
  it('gives results and artifacts ids derived from their submission, so redone work matches', () => {
    const submission = '01a1fe2b-9555-7666-a9e0-269eab8470a7';
    expect(resultIdFor(submission)).toBe(resultIdFor(submission));
    expect(resultIdFor(submission)).not.toBe(resultIdFor('01a1fe2b-9555-7666-a9e0-269eab8470a8'));
    const result = resultIdFor(submission);
    expect(artifactIdFor(result, 'pdf')).not.toBe(artifactIdFor(result, 'html'));
    expect(artifactIdFor(result, 'pdf')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('gives a subject one id per tenant and reference, without a lookup', () => {
    const tenant = '01a1fe2b-9555-7666-a9e0-269eab8470a7';
    const other = '01a1fe2b-9555-7666-a9e0-269eab8470a8';
    expect(subjectIdFor(tenant, 'subj-1')).toBe(subjectIdFor(tenant, 'subj-1'));
    expect(subjectIdFor(tenant, 'subj-1')).not.toBe(subjectIdFor(tenant, 'subj-2'));
    expect(subjectIdFor(tenant, 'subj-1')).not.toBe(subjectIdFor(other, 'subj-1'));
    expect(version(subjectIdFor(tenant, 'subj-1'))).toBe(5);
  });
});

describe('newId', () => {
  it('makes RFC 9562 version 7 ids, strictly increasing within the process', () => {
    const ids = Array.from({ length: 5000 }, () => newId());
    for (const id of ids) {
      expect(id).toMatch(V7);
      expect(validate(id) && version(id)).toBe(7);
    }
    const sorted = [...ids].sort();
    expect(sorted).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('carries the current time in its first 48 bits', () => {
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    const ms = Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16);
    // Within one millisecond the counter may carry into the next one (as the uuid package's does).
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after + 1);
  });
});
