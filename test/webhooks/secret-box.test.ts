import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/secret-box.js';

const KEY = 'k'.repeat(32);

describe('SecretBox', () => {
  it('opens what it sealed, and seals the same value differently each time', () => {
    const box = new SecretBox(KEY);
    const a = box.seal('whsec_abc', 'partner-1');
    const b = box.seal('whsec_abc', 'partner-1');
    expect(a).not.toBe(b);
    expect(a).not.toContain('whsec_abc');
    expect(box.open(a, 'partner-1')).toBe('whsec_abc');
    expect(box.open(b, 'partner-1')).toBe('whsec_abc');
  });

  it('refuses another owner’s value, an altered value and another master key', () => {
    const box = new SecretBox(KEY);
    const sealed = box.seal('whsec_abc', 'partner-1');
    expect(() => box.open(sealed, 'partner-2')).toThrow();
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0] = body[0]! ^ 1;
    parts[3] = body.toString('base64url');
    expect(() => box.open(parts.join('.'), 'partner-1')).toThrow();
    expect(() => new SecretBox('x'.repeat(32)).open(sealed, 'partner-1')).toThrow();
    expect(() => box.open('not-sealed', 'partner-1')).toThrow();
  });

  it('needs a master key of at least 32 bytes', () => {
    expect(() => new SecretBox('short')).toThrow(/32 bytes/);
  });
});
