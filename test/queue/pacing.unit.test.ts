import { describe, expect, it } from 'vitest';
import {
  DoorSignal,
  doorBusy,
  PRESSURE_ARRIVALS,
  PRESSURE_WINDOW_MS,
  pacedConcurrency,
} from '../../src/queue/pacing.js';

const policy = { busyConcurrency: 4, quietMs: 50 };

describe('pacing the worker behind the front door', () => {
  it('runs at full concurrency when the door has not been under pressure lately', () => {
    expect(pacedConcurrency(128, { msSincePressure: 1_000 }, policy)).toBe(128);
    expect(pacedConcurrency(128, { msSincePressure: Number.POSITIVE_INFINITY }, policy)).toBe(128);
  });

  it('keeps a few jobs in flight while the door is under pressure or was within the quiet time', () => {
    expect(pacedConcurrency(128, { msSincePressure: 0 }, policy)).toBe(4);
    expect(pacedConcurrency(128, { msSincePressure: 10 }, policy)).toBe(4);
  });

  it('never starves the pipeline, and never raises a smaller concurrency', () => {
    const busy = { msSincePressure: 0 };
    expect(pacedConcurrency(128, busy, { busyConcurrency: 0, quietMs: 50 })).toBe(1);
    expect(pacedConcurrency(2, busy, policy)).toBe(2);
  });

  it('a steady flow is not pressure: arrivals 10 ms apart (100/s) for a long time', () => {
    let now = 0;
    const door = new DoorSignal(() => now);
    for (let i = 0; i < 1_000; i++) {
      now += 10;
      door.arrived();
      expect(doorBusy(door.state(), policy)).toBe(false);
    }
  });

  it('a burst is: the arrivals of one window mark it, and it lets go after the quiet time', () => {
    let now = 100;
    const door = new DoorSignal(() => now);
    for (let i = 0; i < PRESSURE_ARRIVALS - 1; i++) door.arrived();
    expect(doorBusy(door.state(), policy)).toBe(false);
    now += PRESSURE_WINDOW_MS;
    door.arrived();
    expect(door.state()).toEqual({ msSincePressure: 0 });
    now += 20;
    expect(doorBusy(door.state(), policy)).toBe(true);
    now += 50;
    expect(doorBusy(door.state(), policy)).toBe(false);
  });
});
