/**
 * The front door first (issue 32): while partners' requests are arriving, the worker in the same
 * process keeps only a few jobs in flight, so the event loop answers them first; once the door
 * has been quiet for `quietMs` it runs at full concurrency again. Work is never dropped or put
 * off past the SLA: a busy door still gets `busyConcurrency` jobs through at a time.
 */

/** What the pacer reads of the front door. */
export interface DoorState {
  /** Requests received and not yet answered. */
  inFlight: number;
  /** Milliseconds since the last request arrived (Infinity: none yet). */
  msSinceLastArrival: number;
}

export interface PacingPolicy {
  /** Jobs in flight while the door is busy (at least 1, so the pipeline never starves). */
  busyConcurrency: number;
  /** How long the door must be quiet before the worker runs at full concurrency. */
  quietMs: number;
}

export const PACING_DEFAULTS: PacingPolicy = { busyConcurrency: 1, quietMs: 50 };

export function doorBusy(door: DoorState, policy: PacingPolicy): boolean {
  return door.inFlight > 0 || door.msSinceLastArrival < policy.quietMs;
}

/** The worker's concurrency for this claim: its full `concurrency` unless the door is busy. */
export function pacedConcurrency(concurrency: number, door: DoorState, policy: PacingPolicy): number {
  if (!doorBusy(door, policy)) return concurrency;
  return Math.min(concurrency, Math.max(1, policy.busyConcurrency));
}

/** Counts the front door's requests; fed by the HTTP server, read by the worker's pacer. */
export class DoorSignal {
  private inFlight = 0;
  private lastArrival = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = () => performance.now()) {}

  arrived(): void {
    this.inFlight++;
    this.lastArrival = this.now();
  }

  left(): void {
    if (this.inFlight > 0) this.inFlight--;
  }

  state(): DoorState {
    return { inFlight: this.inFlight, msSinceLastArrival: this.now() - this.lastArrival };
  }
}

/** What the worker asks before each claim. */
export interface ClaimPacer {
  /** Jobs allowed in flight now. */
  concurrency(full: number): number;
  /** When a paced claim should look again, so an idle door gets full speed back soon. */
  readonly recheckMs: number;
}

export function doorPacer(door: DoorSignal, policy: PacingPolicy = PACING_DEFAULTS): ClaimPacer {
  return {
    concurrency: (full) => pacedConcurrency(full, door.state(), policy),
    recheckMs: policy.quietMs,
  };
}
