import { Piscina, transferableSymbol, valueSymbol } from 'piscina';
import type { RenderReply } from './render-types.js';

/**
 * A render thread's reply whose report bytes are transferred to the event loop rather than
 * structured-cloned: the event loop then neither allocates nor copies the ~70 KB of a
 * submission's reports. Piscina transfers the buffers `transferable` names and hands over
 * `value`.
 */
export class MovedReply {
  constructor(
    private readonly reply: RenderReply,
    private readonly buffers: ArrayBuffer[],
  ) {}

  get [transferableSymbol](): ArrayBuffer[] {
    return this.buffers;
  }

  get [valueSymbol](): RenderReply {
    return this.reply;
  }
}

/**
 * Each body on an ArrayBuffer of its own, so transferring it gives away nothing else: a body
 * that shares one (a small Buffer from Node's pool) is copied out first.
 */
export function ownedBodies(reply: RenderReply): { reply: RenderReply; buffers: ArrayBuffer[] } {
  const buffers: ArrayBuffer[] = [];
  const owned: RenderReply = reply.map(([type, r]) => {
    const whole =
      r.body.byteOffset === 0 &&
      r.body.byteLength === r.body.buffer.byteLength &&
      r.body.buffer instanceof ArrayBuffer;
    const body = whole ? r.body : new Uint8Array(r.body);
    buffers.push(body.buffer as ArrayBuffer);
    return [type, { ...r, body }];
  });
  return { reply: owned, buffers };
}

/** The reply, marked for piscina to move its bytes. */
export function moveReply(reply: RenderReply): RenderReply {
  const { reply: owned, buffers } = ownedBodies(reply);
  // piscina unwraps the mark in the thread and posts the value with the buffers transferred.
  return Piscina.move(new MovedReply(owned, buffers)) as unknown as RenderReply;
}
