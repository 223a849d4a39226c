import { describe, expect, it } from 'vitest';
import { DoorSignal, doorBusy, PRESSURE_IN_FLIGHT, pacedConcurrency } from '../../src/queue/pacing.js';

const policy = { busyConcurrency: 4, quietMs: 50 };
const mark = PRESSURE_IN_FLIGHT;

describe('pacing the worker behind the front door', () => {
  it('runs at full concurrency when the door has not been under pressure lately', () => {
    expect(pacedConcurrency(128, { inFlight: 0, msSincePressure: 1_000 }, policy)).toBe(128);
    expect(pacedConcurrency(128, { inFlight: 0, msSincePressure: Number.POSITIVE_INFINITY }, policy)).toBe(
      128,
    );
  });

  it('a steady flow (fewer requests in flight than the mark) is not pressure', () => {
    expect(pacedConcurrency(128, { inFlight: mark - 1, msSincePressure: 5_000 }, policy)).toBe(128);
  });

  it('keeps a few jobs in flight while the door is under pressure or was within the quiet time', () => {
    expect(pacedConcurrency(128, { inFlight: mark, msSincePressure: 0 }, policy)).toBe(4);
    expect(pacedConcurrency(128, { inFlight: 0, msSincePressure: 10 }, policy)).toBe(4);
  });

  it('never starves the pipeline, and never raises a smaller concurrency', () => {
    const busy = { inFlight: mark, msSincePressure: 0 };
    expect(pacedConcurrency(128, busy, { busyConcurrency: 0, quietMs: 50 })).toBe(1);
    expect(pacedConcurrency(2, busy, policy)).toBe(2);
  });

  it('marks pressure when requests pile up, on the clock it is given, and lets it go after the quiet time', () => {
    let now = 100;
    const door = new DoorSignal(() => now);
    for (let i = 0; i < 50; i++) {
      door.arrived();
      door.left();
    }
    expect(doorBusy(door.state(), policy)).toBe(false);
    for (let i = 0; i < mark; i++) door.arrived();
    expect(door.state()).toEqual({ inFlight: mark, msSincePressure: 0 });
    for (let i = 0; i <= mark; i++) door.left();
    now += 20;
    expect(door.state()).toEqual({ inFlight: 0, msSincePressure: 20 });
    expect(doorBusy(door.state(), policy)).toBe(true);
    now += 50;
    expect(doorBusy(door.state(), policy)).toBe(false);
  });
});
