import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ownedBodies } from '../../src/pipeline/moved-reply.js';
import { renderAll } from '../../src/pipeline/render-all.js';
import type { RenderReply, RenderSource } from '../../src/pipeline/render-types.js';
import { ThreadedReportRenderer } from '../../src/pipeline/report-renderer.js';
import { ROOT } from './fixtures.js';

/**
 * A render thread moves its report bytes to the event loop (transferred, not copied): each body
 * on an ArrayBuffer of its own, so that moving it gives away nothing else the thread uses.
 */
const source = JSON.parse(
  readFileSync(path.join(ROOT, 'test/fixtures/model-1.0.0/source.json'), 'utf8'),
) as RenderSource;
const timing = { startedAtMs: 0, ms: 0 };
const meta = { contentType: 'text/plain', fileExtension: 'txt', sha256: '', timing };

describe('the bytes a render thread sends back', () => {
  const renderer = new ThreadedReportRenderer(1);
  afterAll(() => renderer.close());

  it('keeps a body that owns its ArrayBuffer, and copies one out of a shared buffer', () => {
    const own = new Uint8Array([1, 2, 3]);
    const shared = Buffer.from('small'); // from Node's pool: part of a larger ArrayBuffer
    expect(shared.byteLength).toBeLessThan(shared.buffer.byteLength);
    const reply: RenderReply = [
      ['json', { ...meta, body: own }],
      ['html', { ...meta, body: shared }],
    ];
    const { reply: owned, buffers } = ownedBodies(reply);
    expect(owned[0]![1].body).toBe(own);
    const copied = owned[1]![1].body;
    expect(copied).not.toBe(shared);
    expect(Buffer.from(copied).toString()).toBe('small');
    expect(copied.byteOffset).toBe(0);
    expect(copied.byteLength).toBe(copied.buffer.byteLength);
    expect(buffers).toEqual([own.buffer, copied.buffer]);
  });

  it('arrive from the thread byte for byte as rendered on the event loop', async () => {
    const types = ['json', 'html', 'pdf'] as const;
    const threaded = await renderer.render(source, [...types], new AbortController().signal);
    const inline = new Map(await renderAll(source, types));
    for (const type of types) {
      const got = threaded.get(type)!;
      expect(got.body.equals(inline.get(type)!.body), `${type} bytes`).toBe(true);
      expect(got.sha256).toBe(inline.get(type)!.sha256);
      expect(got.body.byteLength).toBe(got.body.buffer.byteLength);
    }
  });
});
