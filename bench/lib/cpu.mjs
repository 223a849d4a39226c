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

/** CPU ms of every PostgreSQL process on this machine (a local server), by pid. */
export function postgresCpuMs() {
  const byPid = new Map();
  let entries;
  try {
    entries = fs.readdirSync('/proc');
  } catch {
    return byPid;
  }
  for (const pid of entries) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres') continue;
    } catch {
      continue;
    }
    const ms = processCpuMs(pid);
    if (ms !== undefined) byPid.set(pid, ms);
  }
  return byPid;
}

/** CPU used between two `postgresCpuMs` readings; a process that started in between counts from 0. */
export function postgresDeltaMs(before, after) {
  let total = 0;
  for (const [pid, ms] of after) total += ms - (before.get(pid) ?? 0);
  return total;
}
