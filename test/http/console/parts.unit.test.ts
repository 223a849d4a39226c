import { describe, expect, it } from 'vitest';
import { consoleHeaders } from '../../../src/http/console/headers.js';
import { callbackNow, hourlyCounts, windowStats } from '../../../src/http/console/overview-stats.js';
import { attemptWords, deadlineWords } from '../../../src/http/console/pages/callback-words.js';
import { messagePage } from '../../../src/http/console/pages/layout.js';
import { CsrfTokens } from '../../../src/http/console/tokens.js';

/** The console's parts without a server: headers, CSRF tokens, escaping, the overview's arithmetic. */

describe('consoleHeaders', () => {
  it('forbids framing unless sites are listed, then names only them', () => {
    const none = consoleHeaders([]);
    expect(none['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(none['x-frame-options']).toBe('DENY');
    const some = consoleHeaders(['https://app.example.com', 'https://ops.example.com']);
    expect(some['content-security-policy']).toContain(
      'frame-ancestors https://app.example.com https://ops.example.com',
    );
    expect(some['x-frame-options']).toBeUndefined();
    for (const headers of [none, some]) {
      expect(headers['content-security-policy']).toMatch(/script-src 'self'; /);
      expect(headers['content-security-policy']).not.toMatch(/unsafe|\*/);
    }
  });
});

describe('CsrfTokens', () => {
  it("accepts a session's own token only", () => {
    const tokens = new CsrfTokens(Buffer.from('secret'));
    const own = tokens.for('session-a');
    expect(tokens.check('session-a', own)).toBe(true);
    expect(tokens.check('session-b', own)).toBe(false);
    expect(tokens.check('session-a', undefined)).toBe(false);
    expect(tokens.check('session-a', `${own}x`)).toBe(false);
    expect(new CsrfTokens(Buffer.from('other')).check('session-a', own)).toBe(false);
  });
});

describe('pages', () => {
  it('escape what they are given', () => {
    const html = messagePage('<script>alert(1)</script>', ['"><img src=x onerror=alert(1)>']);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script>');
  });
});

describe('the overview figures', () => {
  const now = new Date('2026-11-21T12:30:00Z');
  const at = (iso: string) => iso;
  it('counts, times acceptance to completion (p50, p95), SLA breaches and the callback rate', () => {
    const submissions = [
      ...Array.from({ length: 19 }, (_, i) => ({
        status: 'completed',
        receivedAt: at('2026-11-21T12:00:00.000Z'),
        completedAt: new Date(Date.parse('2026-11-21T12:00:00Z') + (i + 1) * 1000).toISOString(),
        slaDeadlineAt: '2026-11-21T12:00:10.000Z',
        finishedAt: null,
      })),
      {
        status: 'failed',
        receivedAt: at('2026-11-21T11:00:00Z'),
        completedAt: null,
        slaDeadlineAt: null,
        finishedAt: null,
      },
      {
        status: 'processing',
        receivedAt: at('2026-11-21T11:00:00Z'),
        completedAt: null,
        slaDeadlineAt: '2026-11-21T11:05:00Z',
        finishedAt: null,
      },
    ];
    const stats = windowStats(
      {
        submissions,
        truncated: false,
        callbacks: { delivered: 3, failed: 1, failing: 1, held: 1, pending: 2, notSent: 5 },
      },
      now,
    );
    expect(stats).toMatchObject({
      accepted: 21,
      completed: 19,
      failed: 1,
      rejected: 0,
      p50Ms: 10_000,
      p95Ms: 19_000,
    });
    // Completed after their deadline (9 of them), and one still unfinished past its own.
    expect(stats.slaBreaches).toBe(10);
    // Events waiting after a failed attempt and held ones are not delivered; first tries and
    // events without a callback URL are not counted.
    expect(stats.callbackSuccess).toBe(0.5);
    const empty = windowStats(
      {
        submissions: [],
        truncated: false,
        callbacks: { delivered: 0, failed: 0, failing: 0, held: 0, pending: 3, notSent: 2 },
      },
      now,
    );
    expect([empty.p50Ms, empty.callbackSuccess]).toEqual([null, null]);
  });

  it('says whether callbacks are failing now: the failures in a row, the newest one, the events waiting', () => {
    const attempt = (at: string, outcome: string, statusCode: number | null, errorClass: string | null) => ({
      at,
      outcome,
      statusCode,
      errorClass,
    });
    const failing = callbackNow({
      waitingAfterFailure: 2,
      recent: [
        attempt('2026-11-21T12:03:00.000Z', 'failed', null, 'connection_refused'),
        attempt('2026-11-21T12:02:00.000Z', 'failed', 500, 'http_status'),
        attempt('2026-11-21T12:01:00.000Z', 'delivered', 200, null),
        attempt('2026-11-21T12:00:00.000Z', 'failed', 500, 'http_status'),
      ],
    });
    expect(failing).toMatchObject({
      failedInARow: 2,
      allFailed: false,
      lastDeliveredAt: '2026-11-21T12:01:00.000Z',
      waitingAfterFailure: 2,
    });
    expect(attemptWords(failing.last!)).toBe('Failed: The connection was refused');
    expect(failing.lastFailure).toBe(failing.last);
    expect(attemptWords({ outcome: 'failed', statusCode: 500, errorClass: 'http_status' })).toBe(
      'Failed: Your callback endpoint answered with an error status (HTTP 500)',
    );
    const all = callbackNow({
      waitingAfterFailure: 0,
      recent: [attempt('2026-11-21T12:00:00Z', 'failed', 503, 'http_status')],
    });
    expect([all.failedInARow, all.allFailed, all.lastDeliveredAt]).toEqual([1, true, undefined]);
    const fine = callbackNow({
      waitingAfterFailure: 0,
      recent: [attempt('2026-11-21T12:00:00Z', 'delivered', 204, null)],
    });
    expect([fine.failedInARow, fine.allFailed, fine.lastFailure]).toEqual([0, false, undefined]);
    expect(callbackNow({ waitingAfterFailure: 0, recent: [] })).toMatchObject({
      failedInARow: 0,
      allFailed: false,
    });
  });

  it('says which a deadline is: met, missed or pending with when it is due', () => {
    const due = '2026-11-21T12:10:00.000Z';
    expect(deadlineWords({ slaDeadlineAt: due, missed: false, finished: true })).toBe('Deadline met');
    expect(deadlineWords({ slaDeadlineAt: due, missed: true, finished: true })).toBe(
      'Deadline missed (due 2026-11-21 12:10:00 UTC)',
    );
    expect(deadlineWords({ slaDeadlineAt: due, missed: false, finished: false })).toBe(
      'Deadline pending (due 2026-11-21 12:10:00 UTC)',
    );
    expect(deadlineWords({ slaDeadlineAt: null, missed: false, finished: false })).toBe('No deadline');
  });

  it('buckets the last 24 hours by hour, oldest first', () => {
    const hours = hourlyCounts(
      [
        {
          status: 'completed',
          receivedAt: '2026-11-21T12:10:00Z',
          completedAt: null,
          slaDeadlineAt: null,
          finishedAt: null,
        },
        {
          status: 'completed',
          receivedAt: '2026-11-21T12:20:00Z',
          completedAt: null,
          slaDeadlineAt: null,
          finishedAt: null,
        },
        {
          status: 'completed',
          receivedAt: '2026-11-20T13:00:00Z',
          completedAt: null,
          slaDeadlineAt: null,
          finishedAt: null,
        },
        {
          status: 'completed',
          receivedAt: '2026-11-20T12:59:00Z',
          completedAt: null,
          slaDeadlineAt: null,
          finishedAt: null,
        },
      ],
      now,
    );
    expect(hours).toHaveLength(24);
    expect(hours[0]).toEqual({ start: '2026-11-20T13:00:00.000Z', count: 1 });
    expect(hours[23]).toEqual({ start: '2026-11-21T12:00:00.000Z', count: 2 });
    expect(hours.reduce((n, h) => n + h.count, 0)).toBe(3);
  });
});
