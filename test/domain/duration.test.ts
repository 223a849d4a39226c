import { describe, expect, it } from 'vitest';
import { durationMs, durationSchema, durationText, durationWords } from '../../src/domain/duration.js';

/** The one duration grammar: settings, the operator CLI, the API and the console read it. */
describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['0s', 0],
    ['30s', 30_000],
    ['5m', 300_000],
    ['24h', 86_400_000],
    ['30d', 30 * 86_400_000],
  ])('reads %s as %i ms', (text, ms) => {
    expect(durationMs(text)).toBe(ms);
    expect(durationSchema.safeParse(text).success).toBe(true);
  });

  it.each(['', '5', '1w', '-1h', '1.5h', ' 5s', '5 s', 'soon', `${'9'.repeat(20)}d`])(
    'refuses %j',
    (text) => {
      expect(durationMs(text)).toBeUndefined();
      expect(durationSchema.safeParse(text).success).toBe(false);
    },
  );

  it('writes a duration in its largest whole unit, and reads it back', () => {
    for (const [ms, text] of [
      [250, '250ms'],
      [90_000, '90s'],
      [7 * 86_400_000, '7d'],
      [36 * 3_600_000, '36h'],
    ] as const) {
      expect(durationText(ms)).toBe(text);
      expect(durationMs(text)).toBe(ms);
    }
  });

  it('says a duration in words for a label, one or many', () => {
    expect(['24h', '1h', '7d', '1d', '30s', '1m', '500ms'].map(durationWords)).toEqual([
      '24 hours',
      '1 hour',
      '7 days',
      '1 day',
      '30 seconds',
      '1 minute',
      '500 milliseconds',
    ]);
    expect(() => durationWords('a day')).toThrow('a day is not a duration such as 500ms, 30s, 5m, 24h or 7d');
  });
});
