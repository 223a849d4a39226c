import { hash, randomFillSync } from 'node:crypto';
import { v5 as uuidv5 } from 'uuid';
import { systemClock } from '../clock.js';

const HEX: readonly string[] = Array.from({ length: 256 }, (_, i) => (i + 0x100).toString(16).slice(1));

/** Lowercase 8-4-4-4-12 text of 16 bytes at `offset`. */
function format(b: Uint8Array, offset: number): string {
  return (
    HEX[b[offset]!]! +
    HEX[b[offset + 1]!]! +
    HEX[b[offset + 2]!]! +
    HEX[b[offset + 3]!]! +
    '-' +
    HEX[b[offset + 4]!]! +
    HEX[b[offset + 5]!]! +
    '-' +
    HEX[b[offset + 6]!]! +
    HEX[b[offset + 7]!]! +
    '-' +
    HEX[b[offset + 8]!]! +
    HEX[b[offset + 9]!]! +
    '-' +
    HEX[b[offset + 10]!]! +
    HEX[b[offset + 11]!]! +
    HEX[b[offset + 12]!]! +
    HEX[b[offset + 13]!]! +
    HEX[b[offset + 14]!]! +
    HEX[b[offset + 15]!]!
  );
}

// One call into the CSPRNG per 256 ids instead of one per 16, and no copy per id: a request
// makes three or four.
const POOL_IDS = 256;
const pool = new Uint8Array(16 * POOL_IDS);
let poolAt = pool.length;
const bytes = new Uint8Array(16);

function random16(): Uint8Array {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const at = poolAt;
  poolAt += 16;
  return pool.subarray(at, at + 16);
}

// The counter state of the uuid package's v7 (RFC 9562 §6.2, method 1: a 32-bit counter seeded
// at random each millisecond), so ids from one process stay strictly increasing.
let lastMs = Number.NEGATIVE_INFINITY;
let seq = 0;

/** Time-ordered ids keep primary-key indexes append-mostly. RFC 9562 version 7. */
export function newId(): string {
  const r = random16();
  // Real time, as the uuid package read it: an id's time orders the index, it is not a stamp.
  let ms = systemClock().getTime();
  if (ms > lastMs) {
    seq = (r[6]! << 23) | (r[7]! << 16) | (r[8]! << 8) | r[9]!;
    lastMs = ms;
  } else {
    seq = (seq + 1) | 0;
    if (seq === 0) lastMs++;
    ms = lastMs;
  }
  bytes[0] = (ms / 0x10000000000) & 0xff;
  bytes[1] = (ms / 0x100000000) & 0xff;
  bytes[2] = (ms / 0x1000000) & 0xff;
  bytes[3] = (ms / 0x10000) & 0xff;
  bytes[4] = (ms / 0x100) & 0xff;
  bytes[5] = ms & 0xff;
  bytes[6] = 0x70 | ((seq >>> 28) & 0x0f);
  bytes[7] = (seq >>> 20) & 0xff;
  bytes[8] = 0x80 | ((seq >>> 14) & 0x3f);
  bytes[9] = (seq >>> 6) & 0xff;
  bytes[10] = ((seq << 2) & 0xff) | (r[10]! & 0x03);
  bytes[11] = r[11]!;
  bytes[12] = r[12]!;
  bytes[13] = r[13]!;
  bytes[14] = r[14]!;
  bytes[15] = r[15]!;
  return format(bytes, 0);
}

const NAMESPACE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const namespaces = new Map<string, Buffer>();
const MAX_NAMESPACES = 1024;

function namespaceBytes(namespace: string): Buffer | undefined {
  let out = namespaces.get(namespace);
  if (out !== undefined) return out;
  if (!NAMESPACE.test(namespace)) return undefined;
  out = Buffer.from(namespace.replaceAll('-', ''), 'hex');
  if (namespaces.size >= MAX_NAMESPACES) namespaces.clear();
  namespaces.set(namespace, out);
  return out;
}

// The namespace and the name are written here, not into a new buffer per id.
const input = Buffer.allocUnsafe(16 + 3 * 1024);
const MAX_NAME_CHARS = 1024;

/** The variant nibble (RFC 9562: 10xx) of a hex digit's value. */
const VARIANT = '89ab89ab89ab89ab';

/**
 * RFC 9562 version 5, as the uuid package computes it, without its per-call parse of the
 * namespace and byte copies. Anything unusual (an invalid namespace, a value that is not
 * well-formed Unicode, a very long name) goes to the package, so its errors stay the same.
 */
function nameBased(value: string, namespace: string): string {
  const ns = namespaceBytes(namespace);
  if (ns === undefined || value.length > MAX_NAME_CHARS || !value.isWellFormed()) {
    return uuidv5(value, namespace);
  }
  ns.copy(input, 0);
  // At most three UTF-8 bytes per UTF-16 unit: the name always fits.
  const length = 16 + input.write(value, 16, 'utf8');
  const h = hash('sha1', input.subarray(0, length), 'hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${VARIANT[Number.parseInt(h[16]!, 16)]}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A subject is identified by the partner's de-identified reference within one tenant; a
 * name-based UUID gives the same subjectId for every submission of that subject without a
 * lookup on the ingest path.
 */
export function subjectIdFor(tenantId: string, partnerSubjectId: string): string {
  return nameBased(partnerSubjectId, tenantId);
}

/**
 * A submission's result and artifacts get ids derived from the submission, so however often a
 * step runs (a crash between its work and its commit, an operator replaying it), it can only
 * ever produce the same ids: one result per submission by construction, not by luck.
 */
export function resultIdFor(submissionId: string): string {
  return nameBased('result', submissionId);
}

export function artifactIdFor(resultId: string, type: string): string {
  return nameBased(`artifact:${type}`, resultId);
}
