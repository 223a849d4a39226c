import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../derive-key.js';

/**
 * Opaque, signed page cursors for the list routes (and the console's pages on them). A cursor
 * carries the keyset position of the last item of a page, and a MAC over that position and its
 * scope: the account, the mode, the list and the filter set it was issued for. So a cursor from
 * another account, mode, list or filter set, or one altered by hand, is refused (`400`) rather
 * than silently walking another list; the position itself reveals nothing worth hiding.
 */
export interface CursorScope {
  /** The list, e.g. `submissions`, `events`. */
  list: string;
  tenantId: string;
  /** The list's filters, as the request gave them (absent ones left out). */
  filters: Readonly<Record<string, string | number | undefined>>;
}

/** A keyset position: the values of the sort columns of the last item, e.g. `[receivedAt, id]`. */
export type CursorPosition = ReadonlyArray<string | number>;

const MAC_BYTES = 16;

export class PageCursors {
  private readonly key: Buffer;

  /** `secret`: the service's signing secret; the cursor key is derived from it, never it. */
  constructor(secret: Buffer) {
    this.key = deriveKey(secret, 'pageCursors');
  }

  private mac(scope: CursorScope, position: string): Buffer {
    const filters = Object.keys(scope.filters)
      .filter((k) => scope.filters[k] !== undefined)
      .sort()
      .map((k) => [k, scope.filters[k]]);
    return createHmac('sha256', this.key)
      .update(JSON.stringify([scope.list, scope.tenantId, filters, position]))
      .digest()
      .subarray(0, MAC_BYTES);
  }

  encode(scope: CursorScope, position: CursorPosition): string {
    const text = JSON.stringify(position);
    return `${Buffer.from(text, 'utf8').toString('base64url')}.${this.mac(scope, text).toString('base64url')}`;
  }

  /** The position, or undefined for a cursor not issued for this scope (or not one at all). */
  decode(scope: CursorScope, cursor: string): CursorPosition | undefined {
    const [body, mac, extra] = cursor.split('.');
    if (!body || !mac || extra !== undefined || cursor.length > 512) return undefined;
    const text = Buffer.from(body, 'base64url').toString('utf8');
    const given = Buffer.from(mac, 'base64url');
    const expected = this.mac(scope, text);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    try {
      const value: unknown = JSON.parse(text);
      if (!Array.isArray(value)) return undefined;
      return value.every((v) => typeof v === 'string' || typeof v === 'number')
        ? (value as CursorPosition)
        : undefined;
    } catch {
      return undefined;
    }
  }
}
