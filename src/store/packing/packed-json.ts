import zlib from 'node:zlib';
import { CURRENT_DICTIONARY, dictionary, type PackKind } from './dictionaries.js';

/**
 * The first byte of a packed value. JSON text never starts with it, so a column holds packed
 * values and plain JSON text (rows written before packing) side by side.
 */
const PACKED = 0x00;

/** A packed column as the drivers return it: bytes (packed, or plain text's), or text. */
export type StoredJson = Uint8Array | string;

/** `text` deflated with the current dictionary of its kind: `[0x00, dictionary id, deflate-raw…]`. */
export function packJson(text: string, kind: PackKind): Buffer {
  const id = CURRENT_DICTIONARY[kind];
  const deflated = zlib.deflateRawSync(Buffer.from(text, 'utf8'), { dictionary: dictionary(id) });
  return Buffer.concat([Buffer.from([PACKED, id]), deflated]);
}

/** True when `value` is a packed value (not plain JSON text). */
export function isPacked(value: StoredJson): value is Uint8Array {
  return value instanceof Uint8Array && value[0] === PACKED;
}

/** A stored JSON value's text, whichever way it was stored. */
export function unpackJson(value: StoredJson): string {
  if (typeof value === 'string') return value;
  const bytes = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  if (bytes[0] !== PACKED) return bytes.toString('utf8');
  if (bytes.length < 2) throw new Error('A stored value is packed but empty.');
  return zlib
    .inflateRawSync(bytes.subarray(2), { dictionary: dictionary(bytes[1] as number) })
    .toString('utf8');
}
