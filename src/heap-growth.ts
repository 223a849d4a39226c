import v8 from 'node:v8';

/**
 * How far V8 lets the old generation grow past what the last full collection kept alive, in
 * percent, before it collects again.
 */
export const OLD_GENERATION_GROWTH_PERCENT = 20;

/**
 * Bounds the garbage a long-running service process keeps in its old generation
 * (docs/performance-journal.md, "Issue 32: peak RSS under `bench:ingest`"). Under a flood of requests,
 * objects of requests still waiting for their commit survive two scavenges and are promoted;
 * V8's own growing factor (up to 4× the live heap) then let that garbage pile up for tens of
 * seconds, about 0.7 KB per request, and it was most of the service's peak RSS. At 20 % a full
 * collection comes every 3–7 s under load, 3–15 ms of the event loop each (the marking is mostly
 * concurrent), and requests/s did not change.
 *
 * A runtime flag rather than a command-line one so that every way of starting the service
 * (`node dist/server.js`, `healthspan-admin serve`, a container's command) gets it. V8 reads this one
 * each time it sets the next collection's limit, so setting it after start takes effect at the
 * next full collection; the flag applies to every isolate of the process.
 */
export function boundOldGenerationGrowth(): void {
  v8.setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
}

/**
 * Only in a process that runs no worker (`--role api`, or `WORKER_CONCURRENCY=0`): rendering
 * reports allocates far more, and with the bound `bench:pipeline --reports` spent 8.7–9.7 ms of
 * service CPU per submission against 7.2–9.3 ms without (alternated runs), the collections coming
 * more often on every thread.
 */
export function boundOldGenerationGrowthWithoutWorker(role: string, workerConcurrency: number): void {
  if (role === 'api' || workerConcurrency <= 0) boundOldGenerationGrowth();
}
