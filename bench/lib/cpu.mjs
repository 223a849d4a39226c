// CPU time spent by the processes of a benchmark run, read from /proc (Linux): where a
// throughput figure's CPU went on a machine whose cores the service, PostgreSQL and the load
// generator share. Elsewhere every reading is undefined and the bench prints no CPU line.
import fs from 'node:fs';

const TICKS_PER_SECOND = 100; // USER_HZ, fixed at 100 on Linux for /proc's clock ticks

/** CPU ms (user + system, all threads) of one process, or undefined when it cannot be read. */
export function processCpuMs(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** The pids of every PostgreSQL process on this machine (a local server); empty off Linux. */
export function postgresPids() {
  let entries;
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
    } catch {
      return false;
    }
  });
}

/** CPU ms of every PostgreSQL process on this machine (a local server), by pid. */
export function postgresCpuMs() {
  const byPid = new Map();
  for (const pid of postgresPids()) {
    const ms = processCpuMs(pid);
    if (ms !== undefined) byPid.set(pid, ms);
  }
  return byPid;
}

/**
 * CPU used between two `postgresCpuMs` readings, of the processes in `only` (all when unset); a
 * process that started in between counts from 0.
 */
export function postgresDeltaMs(before, after, only) {
  let total = 0;
  for (const [pid, ms] of after) if (!only || only.has(pid)) total += ms - (before.get(pid) ?? 0);
  return total;
}

/** CPU ms of each thread of one process, by thread id (Linux /proc); empty when unreadable. */
export function threadCpuMs(pid) {
  const byThread = new Map();
  let tids;
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return byThread;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      byThread.set(tid, ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND);
    } catch {}
  }
  return byThread;
}

/**
 * Where a process's CPU went between two `threadCpuMs` readings: its main thread (whose id is
 * the process id), its busiest other threads (worker threads: the SQLite writer, report
 * rendering), and the rest (V8's garbage collector and compiler, libuv's pool) together.
 */
export function threadSplit(pid, before, after) {
  const delta = [...after].map(([tid, ms]) => [tid, ms - (before.get(tid) ?? 0)]);
  const main = delta.find(([tid]) => tid === String(pid))?.[1] ?? 0;
  const others = delta.filter(([tid]) => tid !== String(pid)).sort((a, b) => b[1] - a[1]);
  return {
    main,
    top: others.slice(0, 2).map(([, ms]) => ms),
    rest: others.slice(2).reduce((s, [, ms]) => s + ms, 0),
  };
}

/** The whole machine's CPU ticks by state (/proc/stat's first line), or undefined off Linux. */
export function machineTicks() {
  try {
    const [, ...fields] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number);
    return { user, nice, system, idle, iowait, irq, softirq, steal };
  } catch {
    return undefined;
  }
}

/**
 * Percent of the machine's time between two readings spent waiting on the disk (iowait) and
 * taken by the hypervisor (steal): a latency spike that coincides with either is the machine's.
 */
export function machineShares(before, after) {
  if (!before || !after) return { iowaitPct: Number.NaN, stealPct: Number.NaN };
  const d = (k) => after[k] - before[k];
  const total = Object.keys(after).reduce((sum, k) => sum + d(k), 0);
  return { iowaitPct: (100 * d('iowait')) / total, stealPct: (100 * d('steal')) / total };
}

/** A process's I/O counters (/proc/PID/io: syscr, syscw, wchar, write_bytes…), or undefined. */
export function processIo(pid) {
  try {
    const io = {};
    for (const line of fs.readFileSync(`/proc/${pid}/io`, 'utf8').trim().split('\n')) {
      const [k, v] = line.split(':');
      io[k.trim()] = Number(v);
    }
    return io;
  } catch {
    return undefined;
  }
}

/** The counters' growth between two `processIo` readings; undefined when either is missing. */
export function ioDelta(before, after) {
  if (!before || !after) return undefined;
  return Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - (before[k] ?? 0)]));
}

/** Bytes of the report files beside the database in DATA_DIR (`artifacts/`). */
export function embeddedBytes(dataDir) {
  let total = 0;
  const walk = (p) => {
    let st;
    try {
      st = fs.statSync(p);
    } catch {
      return;
    }
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) walk(`${p}/${e}`);
    else total += st.blocks * 512;
  };
  walk(`${dataDir}/artifacts`);
  return total;
}
