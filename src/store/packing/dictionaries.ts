import { DICTIONARY_1 } from './dictionary-1.js';
import { DICTIONARY_2 } from './dictionary-2.js';

/** What a packed value holds: a submission's body (as sent, or normalised), or a result bundle. */
export type PackKind = 'submission' | 'result';

/** Every dictionary a stored value may name, by id. Ids are never reused (README.md). */
const SOURCES: ReadonlyMap<number, string> = new Map([
  [1, DICTIONARY_1],
  [2, DICTIONARY_2],
]);

/** The dictionary new values of each kind are packed with. */
export const CURRENT_DICTIONARY: Readonly<Record<PackKind, number>> = { submission: 1, result: 2 };

const decoded = new Map<number, Buffer>();

/** Dictionary `id`'s bytes, decoded once per process. */
export function dictionary(id: number): Buffer {
  let bytes = decoded.get(id);
  if (!bytes) {
    const source = SOURCES.get(id);
    // Only a value written by a newer version can name one this version lacks (a downgrade).
    if (source === undefined)
      throw new Error(
        `A stored value is packed with dictionary ${id}, which this version of the service does not have.`,
      );
    bytes = Buffer.from(source, 'base64');
    decoded.set(id, bytes);
  }
  return bytes;
}

/** The ids of every dictionary this version can unpack with. */
export function dictionaryIds(): number[] {
  return [...SOURCES.keys()];
}
