import { describe, expect, it } from 'vitest';
import { type SseMessage, sseMessages } from '../../packages/client/src/sse.js';

/** The client's event stream parser: line endings, chunk boundaries, comments, multi-line data. */
async function parse(chunks: string[]): Promise<SseMessage[]> {
  async function* body() {
    for (const c of chunks) yield new TextEncoder().encode(c);
  }
  const out: SseMessage[] = [];
  for await (const m of sseMessages(body())) out.push(m);
  return out;
}

describe('sseMessages', () => {
  it('reads messages split anywhere, in LF, CR and CRLF, skipping comments and messages without data', async () => {
    const text =
      'retry: 1000\nevent: listen.started\ndata: {"a":1}\n\n: keep-alive\n\nid: x1\r\nevent: result.ready\r\ndata: one\r\ndata:two\r\n\r\nid: x2\revent: result.ready\rdata: é\r\rid: x3\n\n';
    for (const size of [1, 2, 3, 7, text.length]) {
      const chunks: string[] = [];
      for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
      expect(await parse(chunks), `chunks of ${size}`).toEqual([
        { id: undefined, event: 'listen.started', data: '{"a":1}' },
        { id: 'x1', event: 'result.ready', data: 'one\ntwo' },
        { id: 'x2', event: 'result.ready', data: 'é' },
      ]);
    }
  });
});
