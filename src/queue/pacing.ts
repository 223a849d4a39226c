/**
 * The front door first (issue 32): while the door is under pressure (a burst: requests arriving
 * faster than the pipeline could complete them), the worker in the same process keeps only a few
 * jobs in flight, so the event loop answers them first; once the pressure has been gone for
 * `quietMs` it runs at full concurrency again. A steady flow the pipeline keeps up with (100/s)
 * is not pressure: pacing it would leave the pipeline behind the arrivals for good. Work is never
 * dropped: a busy door still gets `busyConcurrency` jobs through at a time.
 */

/** What the pacer reads of the front door. */
export interface DoorState {
  /** Milliseconds since arrivals last came as fast as a burst's (Infinity: never). */
  msSincePressure: number;
}

export interface PacingPolicy {
  /** Jobs in flight while the door is busy (at least 1, so the pipeline never starves). */
  busyConcurrency: number;
  /** How long the pressure must be gone before the worker runs at full concurrency. */
  quietMs: number;
}

/**
 * A burst: `PRESSURE_ARRIVALS` requests arriving within `PRESSURE_WINDOW_MS` (400/s or more, above
 * what the pipeline completes, so a flow it keeps up with is never paced). Arrivals, not requests
 * in flight: a `healthspan listen` stream or a slow download stays in flight for minutes without
 * costing the door anything.
 */
export const PRESSURE_ARRIVALS = 4;
export const PRESSURE_WINDOW_MS = 10;

/** How long the pressure must be gone before full speed; `busyConcurrency` is a setting (WORKER_BUSY_CONCURRENCY). */
export const PACING_QUIET_MS = 50;

export function doorBusy(door: DoorState, policy: PacingPolicy): boolean {
  return door.msSincePressure < policy.quietMs;
}

/** The worker's concurrency for this claim: its full `concurrency` unless the door is busy. */
export function pacedConcurrency(concurrency: number, door: DoorState, policy: PacingPolicy): number {
  if (!doorBusy(door, policy)) return concurrency;
  return Math.min(concurrency, Math.max(1, policy.busyConcurrency));
}

/** Watches the front door's arrivals; fed by the HTTP server, read by the worker's pacer. */
export class DoorSignal {
  /** The arrival times before this one that a burst counts, a ring; `next` is the oldest. */
  private readonly recent = new Float64Array(PRESSURE_ARRIVALS - 1).fill(Number.NEGATIVE_INFINITY);
  private next = 0;
  private lastPressure = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = () => performance.now()) {}

  arrived(): void {
    const now = this.now();
    const oldest = this.recent[this.next] ?? Number.NEGATIVE_INFINITY;
    this.recent[this.next] = now;
    this.next = (this.next + 1) % this.recent.length;
    if (now - oldest <= PRESSURE_WINDOW_MS) this.lastPressure = now;
  }

  state(): DoorState {
    return { msSincePressure: this.now() - this.lastPressure };
  }
}

/** What the worker asks before each claim. */
export interface ClaimPacer {
  /** Jobs allowed in flight now. */
  concurrency(full: number): number;
  /** When a paced claim should look again, so an idle door gets full speed back soon. */
  readonly recheckMs: number;
}

export function doorPacer(door: DoorSignal, policy: PacingPolicy): ClaimPacer {
  return {
    concurrency: (full) => pacedConcurrency(full, door.state(), policy),
    recheckMs: policy.quietMs,
  };
}
