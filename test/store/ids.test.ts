import { describe, expect, it } from 'vitest';
import { artifactIdFor, resultIdFor } from '../../src/store/ids.js';

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
});
