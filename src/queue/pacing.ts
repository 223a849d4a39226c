/**
 * The front door first (issue 32): while the door is under pressure (a burst: requests arriving
 * faster than the pipeline could complete them), the worker in the same process keeps only a few
 * jobs in flight, so the event loop answers them first; once the pressure has been gone for
 * `quietMs` it doubles that every `rampStepMs` up to full concurrency (a slow start: a pause of a
 * few hundred milliseconds inside a burst lets a handful of jobs in, not all 128). A steady flow the pipeline keeps up with (100/s)
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
  /** How long the pressure must be gone before the worker's concurrency starts to grow. */
  quietMs: number;
  /** After `quietMs`, the allowed concurrency doubles every this many milliseconds. */
  rampStepMs: number;
}

/**
 * A burst: `PRESSURE_ARRIVALS` requests arriving within `PRESSURE_WINDOW_MS` (400/s or more, above
 * what the pipeline completes, so a flow it keeps up with is never paced). Arrivals, not requests
 * in flight: a `healthspan listen` stream or a slow download stays in flight for minutes without
 * costing the door anything.
 */
export const PRESSURE_ARRIVALS = 4;
export const PRESSURE_WINDOW_MS = 10;

/** From 1 to 128 in jobs in flight takes 50 + 6 × 100 ms: nothing against a drain of seconds. */
export const PACING_DEFAULTS: PacingPolicy = { busyConcurrency: 1, quietMs: 50, rampStepMs: 100 };

export function doorBusy(door: DoorState, policy: PacingPolicy): boolean {
  return door.msSincePressure < policy.quietMs;
}

/**
 * The worker's concurrency for this claim: `busyConcurrency` while the door is busy, then doubling
 * every `rampStepMs`, and its full `concurrency` once the ramp reaches it (or the door was never
 * under pressure).
 */
export function pacedConcurrency(concurrency: number, door: DoorState, policy: PacingPolicy): number {
  const busy = Math.min(concurrency, Math.max(1, policy.busyConcurrency));
  if (doorBusy(door, policy)) return busy;
  if (policy.rampStepMs <= 0) return concurrency;
  const doublings = Math.floor((door.msSincePressure - policy.quietMs) / policy.rampStepMs) + 1;
  return Math.min(concurrency, busy * 2 ** doublings);
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
  /**
   * The door is busy now (not merely ramping back up after a burst): a completing step queues
   * its successor instead of running it at once.
   */
  busy(): boolean;
  /** When a paced claim should look again, so an idle door gets full speed back soon. */
  readonly recheckMs: number;
}

export function doorPacer(door: DoorSignal, policy: PacingPolicy = PACING_DEFAULTS): ClaimPacer {
  return {
    concurrency: (full) => pacedConcurrency(full, door.state(), policy),
    busy: () => doorBusy(door.state(), policy),
    recheckMs: policy.quietMs,
  };
}
