import { describe, expect, it } from 'vitest';
import { DoorSignal, doorBusy, pacedConcurrency } from '../../src/queue/pacing.js';

const policy = { busyConcurrency: 4, quietMs: 50 };

describe('pacing the worker behind the front door', () => {
  it('runs at full concurrency when no request is in flight and none arrived lately', () => {
    expect(pacedConcurrency(128, { inFlight: 0, msSinceLastArrival: 1_000 }, policy)).toBe(128);
    expect(pacedConcurrency(128, { inFlight: 0, msSinceLastArrival: Number.POSITIVE_INFINITY }, policy)).toBe(
      128,
    );
  });

  it('keeps a few jobs in flight while requests are in flight or arrived within the quiet time', () => {
    expect(pacedConcurrency(128, { inFlight: 3, msSinceLastArrival: 5_000 }, policy)).toBe(4);
    expect(pacedConcurrency(128, { inFlight: 0, msSinceLastArrival: 10 }, policy)).toBe(4);
  });

  it('never starves the pipeline, and never raises a smaller concurrency', () => {
    const busy = { inFlight: 1, msSinceLastArrival: 0 };
    expect(pacedConcurrency(128, busy, { busyConcurrency: 0, quietMs: 50 })).toBe(1);
    expect(pacedConcurrency(2, busy, policy)).toBe(2);
  });

  it('counts requests from arrival to answer, on the clock it is given', () => {
    let now = 100;
    const door = new DoorSignal(() => now);
    expect(doorBusy(door.state(), policy)).toBe(false);
    door.arrived();
    door.arrived();
    expect(door.state()).toEqual({ inFlight: 2, msSinceLastArrival: 0 });
    door.left();
    door.left();
    door.left();
    now += 20;
    expect(door.state()).toEqual({ inFlight: 0, msSinceLastArrival: 20 });
    expect(doorBusy(door.state(), policy)).toBe(true);
    now += 50;
    expect(doorBusy(door.state(), policy)).toBe(false);
  });
});
