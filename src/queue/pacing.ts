/**
 * The front door first (issue 32): while the door is under pressure (a burst: several requests
 * waiting for their answer at once), the worker in the same process keeps only a few jobs in
 * flight, so the event loop answers them first; once the pressure has been gone for `quietMs` it
 * runs at full concurrency again. A steady flow (100/s answered in a few ms each, so rarely more
 * than one in flight) is not pressure: pacing it would leave the pipeline behind the arrivals for
 * good. Work is never dropped: a busy door still gets `busyConcurrency` jobs through at a time.
 */

/** What the pacer reads of the front door. */
export interface DoorState {
  /** Requests received and not yet answered. */
  inFlight: number;
  /** Milliseconds since requests last reached the pressure mark (Infinity: never). */
  msSincePressure: number;
}

export interface PacingPolicy {
  /** Jobs in flight while the door is busy (at least 1, so the pipeline never starves). */
  busyConcurrency: number;
  /** How long the pressure must be gone before the worker runs at full concurrency. */
  quietMs: number;
}

/** Requests in flight at once that make a burst (`DoorSignal`'s mark). */
export const PRESSURE_IN_FLIGHT = 4;

export const PACING_DEFAULTS: PacingPolicy = { busyConcurrency: 1, quietMs: 50 };

export function doorBusy(door: DoorState, policy: PacingPolicy): boolean {
  return door.inFlight >= PRESSURE_IN_FLIGHT || door.msSincePressure < policy.quietMs;
}

/** The worker's concurrency for this claim: its full `concurrency` unless the door is busy. */
export function pacedConcurrency(concurrency: number, door: DoorState, policy: PacingPolicy): number {
  if (!doorBusy(door, policy)) return concurrency;
  return Math.min(concurrency, Math.max(1, policy.busyConcurrency));
}

/** Counts the front door's requests; fed by the HTTP server, read by the worker's pacer. */
export class DoorSignal {
  private inFlight = 0;
  private lastPressure = Number.NEGATIVE_INFINITY;

  constructor(private readonly now: () => number = () => performance.now()) {}

  arrived(): void {
    this.inFlight++;
    if (this.inFlight >= PRESSURE_IN_FLIGHT) this.lastPressure = this.now();
  }

  left(): void {
    if (this.inFlight > 0) this.inFlight--;
  }

  state(): DoorState {
    return { inFlight: this.inFlight, msSincePressure: this.now() - this.lastPressure };
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
