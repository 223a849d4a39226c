/**
 * Live or test (docs/sandbox.md): a key's mode decides which of its account's two data sets it
 * reads and writes. Test mode runs the real pipeline; only the simulations below change it.
 */
export const API_MODES = ['live', 'test'] as const;
export type ApiMode = (typeof API_MODES)[number];

/**
 * partnerSubmissionId prefixes that make a test submission misbehave on purpose, so a partner
 * can exercise their failure handling. Live submissions are never affected.
 */
export const SIMULATIONS = {
  /** Scoring fails on every attempt: the submission ends `failed` after the retries. */
  processingFailure: 'simulate:processing_failure',
  /** The first two deliveries of its `result.ready` event count as unanswered (timed out). */
  webhookFailure: 'simulate:webhook_failure',
} as const;

export type Simulation = keyof typeof SIMULATIONS;

/** The simulation a submission asks for: only in test mode, only by the documented prefixes. */
export function simulationOf(mode: ApiMode, partnerSubmissionId: string | null): Simulation | undefined {
  if (mode !== 'test' || partnerSubmissionId === null) return undefined;
  for (const [name, prefix] of Object.entries(SIMULATIONS) as Array<[Simulation, string]>) {
    if (partnerSubmissionId.startsWith(prefix)) return name;
  }
  return undefined;
}
