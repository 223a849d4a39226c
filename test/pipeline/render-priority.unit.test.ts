import fs from 'node:fs';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { ThreadedReportRenderer } from '../../src/pipeline/report-renderer.js';

/** The nice value of every thread of this process (Linux: each thread is a task with its own). */
function threadNices(): number[] {
  return fs.readdirSync('/proc/self/task').flatMap((tid) => {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces); nice is field 19 of stat.
      return [Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])];
    } catch {
      return []; // a thread that ended while we listed them
    }
  });
}

const source = {
  resultId: 'r',
  submissionId: 's',
  receivedAt: new Date(0).toISOString(),
  normalisedBody: 'not json',
  bundle: 'not json',
};

/** Runs one task on a one-thread pool (so its thread has loaded), then lists the nice values. */
async function nicesWithPool(nice: number): Promise<number[]> {
  const renderer = new ThreadedReportRenderer(1, nice);
  try {
    // The thread answers only once its module has loaded, and so set its priority.
    await expect(renderer.render(source, [], new AbortController().signal)).rejects.toThrow();
    return threadNices();
  } finally {
    await renderer.close();
  }
}

describe('render threads yield the cores to the event loop (RENDER_NICE)', () => {
  it('lower their own priority only, not the process’s', async () => {
    const mainBefore = os.getPriority(0);
    const before = threadNices().filter((n) => n === 19).length;
    const nices = await nicesWithPool(19);
    expect(nices.filter((n) => n === 19).length).toBe(before + 1);
    expect(os.getPriority(0)).toBe(mainBefore);
  });

  it('keep the process’s priority with RENDER_NICE=0', async () => {
    const nices = await nicesWithPool(0);
    expect(nices.every((n) => n === os.getPriority(0))).toBe(true);
  });
});
