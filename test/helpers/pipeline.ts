import pino from 'pino';
import { InlineReportRenderer } from '../../src/pipeline/report-renderer.js';
import { pipelineDefinitions } from '../../src/pipeline/steps.js';
import type { JobDefinition } from '../../src/queue/types.js';
import { Worker } from '../../src/queue/worker.js';
import type { TestService } from './service.js';

type Definitions = ReturnType<typeof pipelineDefinitions>;

/** A worker on the service's store running the real pipeline, with a step optionally altered. */
export function startPipelineWorker(
  service: TestService,
  alter: (defs: Definitions) => Partial<Definitions> = () => ({}),
  opts: {
    retryBaseMs?: number;
    leaseMs?: number;
    rescueEveryMs?: number;
    /**
     * The worker's clock (leases, retries): a test that needs a lease to have run out gives a
     * clock ahead of the real time rather than waiting for it.
     */
    clock?: () => Date;
    /** Only these steps (the others stay in the queue for another worker). */
    only?: ReadonlyArray<keyof Definitions>;
  } = {},
): Worker {
  const defs = pipelineDefinitions({
    store: service.store,
    renderer: new InlineReportRenderer(),
    maxAttempts: service.config.jobMaxAttempts,
    clock: () => new Date(),
    webhookScheduleMs: service.config.webhookRetryScheduleMs,
  });
  const all: Record<string, JobDefinition> = { ...defs, ...alter(defs) };
  const definitions = opts.only
    ? Object.fromEntries(
        Object.entries(all).filter(([type]) => opts.only!.includes(type as keyof Definitions)),
      )
    : all;
  const worker = new Worker({
    jobs: service.store.jobs,
    batcher: service.store.batcher,
    notifier: service.store.notifier,
    logger: pino({ level: 'silent' }),
    definitions,
    concurrency: 8,
    // Longer than any test runs: a loaded machine must not make a worker lose its own lease.
    leaseMs: opts.leaseMs ?? 600_000,
    heartbeatMs: 500,
    pollMs: 100,
    rescueEveryMs: opts.rescueEveryMs ?? 250,
    retryBaseMs: opts.retryBaseMs ?? 20,
    retryCapMs: 1000,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  worker.start();
  return worker;
}

export async function waitUntil<T>(
  fn: () => Promise<T | undefined | false | null>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
