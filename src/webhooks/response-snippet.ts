/**
 * What a receiver answered, as the partner may read it back in the event's attempts: the first
 * 1 KiB of the body as text, with control characters removed (line breaks and tabs become one
 * space), so a stored answer can neither carry terminal escapes nor grow without bound. Kept
 * with its attempt record and deleted with it (`WEBHOOK_ATTEMPT_RETENTION`).
 */
export const SNIPPET_BYTES = 1024;

/** Bytes of an incomplete UTF-8 sequence at the end of `bytes` (cut at the limit). */
function incompleteTail(bytes: Buffer): number {
  // Look back at most 3 bytes for the lead byte of the last sequence.
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

/** The snippet of an answer's first bytes (at most `SNIPPET_BYTES` are looked at); null when empty. */
export function responseSnippet(first: Buffer): string | null {
  let bytes = first.subarray(0, SNIPPET_BYTES);
  // A character cut in two at the limit is left out rather than shown as a replacement mark.
  if (first.length >= SNIPPET_BYTES) bytes = bytes.subarray(0, bytes.length - incompleteTail(bytes));
  const text = bytes
    .toString('utf8')
    .replace(/[\t\n\r]+/g, ' ')
    // C0 and C1 controls, DEL, and the bidirectional overrides that reorder what a reader sees.
    .replace(/[\p{Cc}\u202a-\u202e\u2066-\u2069]/gu, '')
    .trim();
  return text === '' ? null : text;
}

/** Collects at most `SNIPPET_BYTES` of a stream's chunks, dropping the rest as it arrives. */
export class SnippetCollector {
  private readonly chunks: Buffer[] = [];
  private size = 0;

  add(chunk: Buffer): void {
    if (this.size >= SNIPPET_BYTES) return;
    const part = chunk.subarray(0, SNIPPET_BYTES - this.size);
    this.chunks.push(part);
    this.size += part.length;
  }

  snippet(): string | null {
    return responseSnippet(Buffer.concat(this.chunks));
  }
}
