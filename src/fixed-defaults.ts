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
export const AUTHENTICATOR_DEFAULTS = {
  maxEntries: 10_000,
  cacheTtlMs: 30_000,
  epochCheckMs: 1_000,
} as const;
