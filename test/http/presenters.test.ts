import { describe, expect, it } from 'vitest';
import { jobSummary } from '../../src/http/presenters.js';
import type { JobRecord } from '../../src/store/repositories/submissions.js';

const DEADLINE = '2026-11-20T10:05:00.000Z';

function job(overrides: Partial<JobRecord>): JobRecord {
  return {
    jobId: '01a223f2-d931-716f-a3ba-8584e43cc122',
    type: 'pipeline.score',
    status: 'running',
    correlationId: null,
    attempts: 1,
    maxAttempts: 5,
    queuedAt: '2026-11-20T10:00:00.000Z',
    acceptedAt: '2026-11-20T10:00:00.000Z',
    startedAt: '2026-11-20T10:00:01.000Z',
    completedAt: null,
    failedAt: null,
    slaDeadlineAt: DEADLINE,
    errorSummary: null,
    ...overrides,
  };
}

describe('a step’s slaBreached', () => {
  const later = new Date('2026-11-20T11:00:00.000Z');

  it('is false for a step that failed before its deadline, however late it is read', () => {
    const failed = job({ status: 'failed', failedAt: '2026-11-20T10:01:00.000Z' });
    expect(jobSummary(failed, later).slaBreached).toBe(false);
  });

  it('is true for a step that finished after its deadline, completed or failed', () => {
    expect(
      jobSummary(job({ status: 'completed', completedAt: '2026-11-20T10:06:00.000Z' }), later).slaBreached,
    ).toBe(true);
    expect(
      jobSummary(job({ status: 'failed', failedAt: '2026-11-20T10:06:00.000Z' }), later).slaBreached,
    ).toBe(true);
  });

  it('is true for an unfinished step past its deadline, false before it', () => {
    expect(jobSummary(job({}), later).slaBreached).toBe(true);
    expect(jobSummary(job({}), new Date('2026-11-20T10:04:00.000Z')).slaBreached).toBe(false);
  });
});
