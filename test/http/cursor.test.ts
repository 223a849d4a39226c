import { describe, expect, it } from 'vitest';
import { type CursorScope, PageCursors } from '../../src/http/cursor.js';

const cursors = new PageCursors(Buffer.from('a secret of the service'));
const scope: CursorScope = {
  list: 'submissions',
  tenantId: '0192f3a0-7c1e-7a2b-9c3d-4e5f60718293',
  filters: { status: 'failed', receivedAfter: undefined },
};
const position = ['2026-11-26T10:00:00.000Z', '0192f3a0-7c1e-7a2b-9c3d-4e5f60718294'];

describe('page cursors', () => {
  it('give back the position for the scope they were issued for, whatever the order of the filters', () => {
    const cursor = cursors.encode(scope, position);
    expect(cursors.decode(scope, cursor)).toEqual(position);
    const reordered = { ...scope, filters: { receivedAfter: undefined, status: 'failed' } };
    expect(cursors.decode(reordered, cursor)).toEqual(position);
  });

  it('refuse another account, list or filter set, another key, and any change to the text', () => {
    const cursor = cursors.encode(scope, position);
    expect(cursors.decode({ ...scope, tenantId: `${scope.tenantId.slice(0, -1)}5` }, cursor)).toBeUndefined();
    expect(cursors.decode({ ...scope, list: 'events' }, cursor)).toBeUndefined();
    expect(cursors.decode({ ...scope, filters: { status: 'completed' } }, cursor)).toBeUndefined();
    expect(cursors.decode({ ...scope, filters: {} }, cursor)).toBeUndefined();
    expect(new PageCursors(Buffer.from('another secret')).decode(scope, cursor)).toBeUndefined();
    const [body, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify(['2030-01-01T00:00:00.000Z', position[1]])).toString(
      'base64url',
    );
    for (const bad of [
      `${forged}.${mac}`,
      `${body}.`,
      body!,
      `${cursor}.x`,
      'not a cursor',
      '',
      `${body}.${mac}x`,
    ])
      expect(cursors.decode(scope, bad), bad).toBeUndefined();
  });
});
