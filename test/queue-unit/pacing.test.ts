import { describe, expect, it } from 'vitest';
import {
  DoorSignal,
  doorBusy,
  doorPacer,
  PRESSURE_ARRIVALS,
  PRESSURE_WINDOW_MS,
  pacedConcurrency,
} from '../../src/queue/pacing.js';

const policy = { busyConcurrency: 4, quietMs: 50, rampStepMs: 100 };

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
    expect(pacedConcurrency(128, busy, { ...policy, busyConcurrency: 0 })).toBe(1);
    expect(pacedConcurrency(2, busy, policy)).toBe(2);
  });

  it('after the quiet time, doubles the busy concurrency every ramp step up to the full one', () => {
    const at = (msSincePressure: number) => pacedConcurrency(128, { msSincePressure }, policy);
    expect([49, 50, 149, 150, 250, 350, 450, 550].map(at)).toEqual([4, 8, 8, 16, 32, 64, 128, 128]);
    const fromOne = { ...policy, busyConcurrency: 1 };
    const ramp = [0, 50, 150, 250, 350, 450, 550, 650].map((ms) =>
      pacedConcurrency(128, { msSincePressure: ms }, fromOne),
    );
    expect(ramp).toEqual([1, 2, 4, 8, 16, 32, 64, 128]);
  });

  it('is busy only until the quiet time: during the ramp claims are limited but chains run on', () => {
    let now = 0;
    const door = new DoorSignal(() => now);
    const pacer = doorPacer(door, policy);
    for (let i = 0; i < PRESSURE_ARRIVALS; i++) door.arrived();
    expect([pacer.busy(), pacer.concurrency(128)]).toEqual([true, 4]);
    now = 60;
    expect([pacer.busy(), pacer.concurrency(128)]).toEqual([false, 8]);
    now = 1_000;
    expect([pacer.busy(), pacer.concurrency(128)]).toEqual([false, 128]);
  });

  it('a ramp step of 0 goes straight to full concurrency after the quiet time', () => {
    const noRamp = { ...policy, rampStepMs: 0 };
    expect(pacedConcurrency(128, { msSincePressure: 49 }, noRamp)).toBe(4);
    expect(pacedConcurrency(128, { msSincePressure: 50 }, noRamp)).toBe(128);
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
