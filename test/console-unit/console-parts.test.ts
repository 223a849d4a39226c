import { describe, expect, it } from 'vitest';
import { consoleHeaders } from '../../src/http/console/headers.js';
import { hourlyCounts, windowStats } from '../../src/http/console/overview-stats.js';
import { messagePage } from '../../src/http/console/pages/layout.js';
import { CsrfTokens } from '../../src/http/console/tokens.js';

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
      { submissions, truncated: false, callbacks: { delivered: 3, failed: 1, pending: 2, notSent: 5 } },
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
    expect(stats.callbackSuccess).toBe(0.75);
    const empty = windowStats(
      { submissions: [], truncated: false, callbacks: { delivered: 0, failed: 0, pending: 0, notSent: 0 } },
      now,
    );
    expect([empty.p50Ms, empty.callbackSuccess]).toEqual([null, null]);
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
