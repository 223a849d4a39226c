const SNIPPET_BYTES = 1024;

/**
 * What an attempt keeps of a receiver's answer: its first 1 KiB as text, control characters
 * removed (tabs and line breaks too: the snippet is shown on one line), no partial character.
 */
export function answerSnippet(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point.
  const clean = text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '');
  const bytes = Buffer.from(clean, 'utf8');
  if (bytes.length <= SNIPPET_BYTES) return clean;
  // Cut at 1 KiB, then drop a character the cut split (decoded as U+FFFD at the end).
  return bytes
    .subarray(0, SNIPPET_BYTES)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
}
