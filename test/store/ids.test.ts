import fc from 'fast-check';
import { v5 as uuidv5, validate, version } from 'uuid';
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

  it('are the uuid package’s version 5 ids, for any reference and namespace spelling', () => {
    fc.assert(
      fc.property(
        fc.uuid(),
        fc.boolean(),
        fc.oneof(fc.string({ unit: 'binary' }), fc.string(), fc.string({ unit: 'grapheme' })),
        (namespace, upper, reference) => {
          const ns = upper ? namespace.toUpperCase() : namespace;
          expect(subjectIdFor(ns, reference)).toBe(uuidv5(reference, ns));
          expect(resultIdFor(ns)).toBe(uuidv5('result', ns));
          expect(artifactIdFor(ns, reference)).toBe(uuidv5(`artifact:${reference}`, ns));
        },
      ),
      { seed: 41, numRuns: 300 },
    );
    const tenant = '01a1fe2b-9555-7666-a9e0-269eab8470a7';
    for (const long of [
      '€'.repeat(1023),
      '€'.repeat(1024),
      '€'.repeat(1025),
      '😀'.repeat(512),
      'a'.repeat(9000),
    ]) {
      expect(subjectIdFor(tenant, long)).toBe(uuidv5(long, tenant));
    }
    for (const ns of ['00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff']) {
      expect(subjectIdFor(ns, 'subj-1')).toBe(uuidv5('subj-1', ns));
    }
  });

  it('fail as the uuid package does for a namespace that is not a UUID or a reference that is not text', () => {
    expect(() => subjectIdFor('not-a-uuid', 'subj-1')).toThrow(TypeError);
    const lone = 'a\ud800b';
    expect(() => subjectIdFor('01a1fe2b-9555-7666-a9e0-269eab8470a7', lone)).toThrow(
      (() => {
        try {
          uuidv5(lone, '01a1fe2b-9555-7666-a9e0-269eab8470a7');
        } catch (error) {
          return (error as Error).message;
        }
        return 'no error';
      })(),
    );
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
