import os from 'node:os';

/**
 * Lowers the calling thread's priority to `nice`. On Linux, setpriority() with pid 0 acts on
 * the calling thread only (each thread is its own task), so the event loop keeps its own.
 * Best effort: where the system refuses, rendering runs at the process's priority.
 */
export function lowerThreadPriority(nice: number): void {
  if (nice <= 0) return;
  try {
    if (os.getPriority(0) < nice) os.setPriority(0, nice);
  } catch {
    // Not permitted here (a sandbox): rendering still works, only without the lower priority.
  }
}
