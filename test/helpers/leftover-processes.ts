import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Global setup of every project: the run FAILS, naming them, when processes it started are still
 * running at its end (a README block's `&`, a spawned server nobody stopped), and ends them so the
 * next run does not find their ports taken. A process counts as the run's when it carries the
 * run's mark in its environment (each test process, and what it starts with `process.env`, does),
 * or when it is an orphan whose working directory is in this checkout that was not there before
 * (`/work/shared/hooks/before-stop` looks for the same). Checked once, after the last project.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const MARK = 'HEALTHSPAN_TEST_RUN';
/** How long a process that is ending anyway is given before it counts as left behind. */
const SHUTDOWN_GRACE_MS = 5_000;

interface RunState {
  projects: number;
  mark: string;
  before: Set<number>;
}

const state = globalThis as typeof globalThis & { healthspanRun?: RunState };

function pids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number);
}

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined; // Gone meanwhile, or not ours to read.
  }
}

function parentOf(pid: number): number | undefined {
  const ppid = /^PPid:\s+(\d+)/m.exec(read(`/proc/${pid}/status`) ?? '')?.[1];
  return ppid === undefined ? undefined : Number(ppid);
}

function inCheckout(pid: number): boolean {
  try {
    const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
    return cwd === ROOT || cwd.startsWith(`${ROOT}/`);
  } catch {
    return false;
  }
}

/** This process and its ancestors: the runner itself, never a leftover. */
function ownLine(): Set<number> {
  const line = new Set<number>();
  for (let pid: number | undefined = process.pid; pid && pid > 1 && !line.has(pid); pid = parentOf(pid)) {
    line.add(pid);
  }
  return line;
}

/** Processes of this run still alive: not the runner, nor its own workers (its direct children). */
export function leftovers(run: RunState): Array<{ pid: number; command: string }> {
  const own = ownLine();
  const found: Array<{ pid: number; command: string }> = [];
  for (const pid of pids()) {
    if (own.has(pid)) continue;
    const ppid = parentOf(pid);
    if (ppid === undefined || ppid === process.pid) continue;
    const mark = (read(`/proc/${pid}/environ`) ?? '')
      .split('\0')
      .find((v) => v.startsWith(`${MARK}=`))
      ?.slice(MARK.length + 1);
    const marked = mark === run.mark;
    // Unmarked only: another run's processes (a second run in this checkout) are its to judge.
    const orphan = mark === undefined && ppid === 1 && !run.before.has(pid) && inCheckout(pid);
    if (!marked && !orphan) continue;
    const command = (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim();
    if (command !== '') found.push({ pid, command: command.slice(0, 200) });
  }
  return found;
}

export default function setup(): () => Promise<void> {
  state.healthspanRun ??= { projects: 0, mark: randomBytes(6).toString('hex'), before: new Set(pids()) };
  const run = state.healthspanRun;
  run.projects += 1;
  process.env[MARK] = run.mark;
  return async () => {
    run.projects -= 1;
    if (run.projects > 0) return;
    // A process a test stopped without waiting for its exit may still be on its way out.
    const deadline = Date.now() + SHUTDOWN_GRACE_MS;
    let left = leftovers(run);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = leftovers(run);
    }
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Ended meanwhile.
      }
    }
    if (left.length > 0) {
      // vitest reports an error thrown here but keeps the run's exit status: set it too.
      process.exitCode = 1;
      throw new Error(
        `the run left ${left.length} process(es) running (now ended; stop them in the test or README block that started them):\n${left
          .map((p) => `  pid ${p.pid}: ${p.command}`)
          .join('\n')}`,
      );
    }
  };
}
