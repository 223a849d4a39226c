import pino from 'pino';
import { systemClock } from '../../src/clock.js';
import { InlineReportRenderer } from '../../src/pipeline/report-renderer.js';
import { pipelineDefinitions } from '../../src/pipeline/steps.js';
import { JobKinds } from '../../src/queue/kinds.js';
import { Rescuer } from '../../src/queue/maintenance/rescuer.js';
import { Maintenance } from '../../src/queue/maintenance/service.js';
import type { JobDefinition } from '../../src/queue/types.js';
import { Worker } from '../../src/queue/worker.js';
import { bodyFor, getJson, postSubmission, type TestAccount, type TestService } from './service.js';

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
  const clock = opts.clock ?? systemClock;
  const defs = pipelineDefinitions({
    store: service.store.system,
    renderer: new InlineReportRenderer(),
    maxAttempts: service.config.jobMaxAttempts,
    clock,
    webhookScheduleMs: service.config.webhookRetryScheduleMs,
  });
  const all: Record<string, JobDefinition> = { ...defs, ...alter(defs) };
  const kinds = new JobKinds();
  for (const [kind, definition] of Object.entries(all)) {
    if (!opts.only || opts.only.includes(kind as keyof Definitions)) kinds.register(kind, definition);
  }
  const retry = { retryBaseMs: opts.retryBaseMs ?? 20, retryCapMs: 1000 };
  const logger = pino({ level: 'silent' });
  const worker = new Worker({
    store: service.store.system,
    kinds,
    logger,
    clock,
    concurrency: 8,
    // Longer than any test runs: a loaded machine must not make a worker lose its own lease.
    leaseMs: opts.leaseMs ?? 600_000,
    heartbeatMs: 500,
    pollMs: 100,
    ...retry,
  });
  // The rescuer beside it, as a service runs one beside its worker.
  const rescuer = new Rescuer({
    store: service.store.system,
    kinds,
    logger,
    clock,
    retry,
    intervalMs: opts.rescueEveryMs ?? 250,
  });
  const maintenance = new Maintenance([rescuer], clock, logger);
  worker.onStopped(() => maintenance.stop());
  worker.start();
  maintenance.start();
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

/** Submits the account's example body and waits until it is completed: its result id. */
export async function completeSubmission(
  service: TestService,
  account: TestAccount,
  timeoutMs = 60_000,
): Promise<string> {
  return (await completeTagged(service, account, undefined, timeoutMs)).resultId;
}

/**
 * Posts a submission and waits for it to complete. With `tag`, its references are `sub-<tag>`
 * and `subj-<tag>` (for scans and erasures) and it asks for every report.
 */
export async function completeTagged(
  service: TestService,
  account: TestAccount,
  tag: string | undefined,
  timeoutMs = 60_000,
): Promise<{ submissionId: string; resultId: string }> {
  const body = bodyFor(account, (b) => {
    if (tag === undefined) return;
    b.partnerSubjectId = `subj-${tag}`;
    b.partnerSubmissionId = `sub-${tag}`;
    b.options.requestedOutputs = ['score', 'json', 'html', 'pdf'];
  });
  const res = await postSubmission(service, body, { apiKey: account.apiKey });
  if (res.status !== 202) throw new Error(`submission answered ${res.status}: ${JSON.stringify(res.json)}`);
  const submissionId = res.json.submissionId as string;
  const resultId = await waitUntil(
    async () => {
      const r = await getJson(service, `/v1/submissions/${submissionId}`, { 'x-api-key': account.apiKey });
      return r.json.status === 'completed' ? (r.json.resultId as string) : undefined;
    },
    timeoutMs,
    'completion',
  );
  return { submissionId, resultId };
}
