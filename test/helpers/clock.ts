/**
 * A clock a test moves by hand, for the components that take one (`Worker`, `Authenticator`,
 * the webhook delivery step): time passes only when the test says so, however slow the machine.
 * It starts at the real time (plus `offsetMs`), so rows it stamps sort with everything else.
 */
export class ManualClock {
  private nowMs: number;

  constructor(offsetMs = 0) {
    this.nowMs = Date.now() + offsetMs;
  }

  /** For components that want a `Date` (the queue, the delivery step). */
  readonly date = (): Date => new Date(this.nowMs);
  /** For components that want milliseconds (the authenticator). */
  readonly ms = (): number => this.nowMs;

  advance(ms: number): void {
    this.nowMs += ms;
  }

  set(ms: number): void {
    this.nowMs = ms;
  }
}

/**
 * The real time moved forward by whatever the test adds: for a service whose clock the test
 * cannot freeze (requests stamp rows with the real time), but must move past a cache interval.
 */
export class SkewedClock {
  private skewMs = 0;

  readonly ms = (): number => Date.now() + this.skewMs;
  readonly date = (): Date => new Date(this.ms());

  advance(ms: number): void {
    this.skewMs += ms;
  }
}

/** A promise the test settles when it chooses: a handler that blocks until then. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A timestamp column as milliseconds: PostgreSQL gives a Date, SQLite an ISO string. */
export function msOf(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'string') return Date.parse(value);
  throw new Error(`not a timestamp: ${String(value)}`);
}
