/**
 * Values the service fixes rather than offers as settings, in one place beside the settings'
 * table (`config.ts`, which holds every setting with its default). Each is a promise to partners
 * or a bound the design relies on, so an operator has no reason to change it.
 */

/** An `Idempotency-Key` answers the same for 24 hours after its first use (the API's promise). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The verified API keys kept in each process (`auth/authenticator.ts`): how many, how long one is
 * trusted without reading the database again, and how often the shared auth epoch is read, so a
 * revocation anywhere is seen within `epochCheckMs` (docs/decisions.md).
 */
/**
 * The rescuer's pace (`queue/maintenance/rescuer.ts`): a dead worker's job runs again within its
 * lease plus `intervalMs` (docs/pipeline.md); a pass settles at most `batchSize` jobs, the rest
 * in the next.
 */
export const RESCUER_DEFAULTS = { intervalMs: 5_000, batchSize: 100 } as const;

/**
 * The test events stream's pacing (`http/listen-stream.ts`): an idle stream asks the database
 * for new events every `pollMs` (one short query), reads `batch` events per query, and writes a
 * comment every `heartbeatMs` so proxies and load balancers keep a quiet stream open.
 */
export const LISTEN_TIMING = { pollMs: 1000, heartbeatMs: 15_000, batch: 100 } as const;

export const AUTHENTICATOR_DEFAULTS = {
  maxEntries: 10_000,
  cacheTtlMs: 30_000,
  epochCheckMs: 1_000,
} as const;
