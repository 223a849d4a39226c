// Where a stall went (Linux): every 100 ms it reads, for each thread of the service's processes
// and for PostgreSQL's processes together, how long they ran and how long they waited for a core
// (/proc/.../schedstat, nanoseconds), and the machine's steal. Per second of the run, a second
// in which the slowest submissions arrived can then be set beside the run's median second: an
// event loop that ran more than usual did its own work then; one that waited for a core lost it
// to other threads or processes; one that did neither was blocked (a lock, the disk, a peer).
// The hypervisor's steal is invisible to the guest's scheduler: a thread it robs looks as if it
// ran, so steal is printed beside it.
import fs from 'node:fs';
import { machineShares, machineTicks, postgresPids } from './cpu.mjs';

function schedstat(file) {
  try {
    const [run, wait] = fs.readFileSync(file, 'utf8').split(' ').map(Number);
    return { run, wait };
  } catch {
    return undefined;
  }
}

/** One reading: ns run and waited by thread key, PostgreSQL's summed, and the machine's ticks. */
function reading(pids, withPostgres) {
  const threads = new Map();
  for (const pid of pids) {
    let tids = [];
    try {
      tids = fs.readdirSync(`/proc/${pid}/task`);
    } catch {}
    for (const tid of tids) {
      const s = schedstat(`/proc/${pid}/task/${tid}/schedstat`);
      if (s) threads.set(tid === String(pid) ? `event loop ${pid}` : `thread ${tid}`, s);
    }
  }
  if (withPostgres) {
    const sum = { run: 0, wait: 0 };
    for (const pid of postgresPids()) {
      const s = schedstat(`/proc/${pid}/schedstat`);
      if (s) {
        sum.run += s.run;
        sum.wait += s.wait;
      }
    }
    threads.set('PostgreSQL', sum);
  }
  return { t: Date.now(), threads, ticks: machineTicks() };
}

export function startStallProbe(pids, { withPostgres = false, everyMs = 100 } = {}) {
  const samples = [reading(pids, withPostgres)];
  const timer = setInterval(() => samples.push(reading(pids, withPostgres)), everyMs);
  timer.unref();
  return {
    stop: () => clearInterval(timer),
    /** Per second since `startMs`: ms run and waited by thread, and the steal in percent. */
    perSecond(startMs) {
      const seconds = new Map();
      for (let i = 1; i < samples.length; i++) {
        const [a, b] = [samples[i - 1], samples[i]];
        const second = Math.floor((b.t - startMs) / 1000);
        if (second < 0) continue;
        const bucket = seconds.get(second) ?? { threads: new Map(), ticksFrom: a.ticks };
        for (const [key, s] of b.threads) {
          const before = a.threads.get(key) ?? { run: 0, wait: 0 };
          const sum = bucket.threads.get(key) ?? { run: 0, wait: 0 };
          sum.run += (s.run - before.run) / 1e6;
          sum.wait += (s.wait - before.wait) / 1e6;
          bucket.threads.set(key, sum);
        }
        bucket.ticksTo = b.ticks;
        seconds.set(second, bucket);
      }
      return seconds;
    },
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/**
 * Lines for the given seconds: the event loop, PostgreSQL and the two threads that ran most
 * that second, each "ran / waited" in ms with the run's median second beside it, and the steal.
 */
export function describeStalls(perSecond, worstSeconds) {
  const all = [...perSecond.values()];
  const usual = (key, field) => median(all.map((b) => b.threads.get(key)?.[field] ?? 0));
  const stealPct = (b) => machineShares(b.ticksFrom, b.ticksTo).stealPct;
  const usualSteal = median(all.map(stealPct));
  const lines = [];
  for (const second of worstSeconds) {
    const bucket = perSecond.get(second);
    if (!bucket) continue;
    const keys = [...bucket.threads.keys()];
    const fixed = keys.filter((k) => k.startsWith('event loop') || k === 'PostgreSQL');
    const busiest = keys
      .filter((k) => !fixed.includes(k))
      .sort((x, y) => bucket.threads.get(y).run - bucket.threads.get(x).run)
      .slice(0, 2);
    const parts = [...fixed, ...busiest].map((key) => {
      const s = bucket.threads.get(key);
      return `${key} ran ${s.run.toFixed(0)} (usually ${usual(key, 'run').toFixed(0)}), waited ${s.wait.toFixed(0)} (${usual(key, 'wait').toFixed(0)})`;
    });
    lines.push(
      `  second ${second}: ${parts.join('; ')}; steal ${stealPct(bucket).toFixed(1)} % (${usualSteal.toFixed(1)})`,
    );
  }
  return lines;
}
