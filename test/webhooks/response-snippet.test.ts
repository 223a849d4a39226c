import { describe, expect, it } from 'vitest';
import { responseSnippet, SNIPPET_BYTES, SnippetCollector } from '../../src/webhooks/response-snippet.js';

/** What a receiver answered, as kept in its attempt: the first 1 KiB as text, no control characters. */
describe('the response snippet', () => {
  it('removes control characters and bidirectional overrides, and makes line breaks and tabs one space', () => {
    expect(responseSnippet(Buffer.from('\u001b[2Jgone\r\n\tback\u0000\u007f\u0085\u202eevil\u202c'))).toBe(
      '[2Jgone backevil',
    );
  });

  it('is null for an empty or blank answer', () => {
    expect(responseSnippet(Buffer.alloc(0))).toBeNull();
    expect(responseSnippet(Buffer.from('\r\n\t \u0007'))).toBeNull();
  });

  it('keeps at most 1 KiB, leaving out a character cut in two at the limit', () => {
    const collector = new SnippetCollector();
    const text = `${'a'.repeat(SNIPPET_BYTES - 2)}€${'b'.repeat(5000)}`;
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += 100) collector.add(bytes.subarray(i, i + 100));
    const snippet = collector.snippet()!;
    expect(snippet).toBe('a'.repeat(SNIPPET_BYTES - 2));
    expect(responseSnippet(Buffer.from(`${'c'.repeat(SNIPPET_BYTES - 3)}€`))).toBe(
      `${'c'.repeat(SNIPPET_BYTES - 3)}€`,
    );
    expect(Buffer.byteLength(responseSnippet(Buffer.from('é'.repeat(2000)))!)).toBe(SNIPPET_BYTES);
  });
});
