/**
 * Delay before retry number `attempt` (1 = after the first failure): exponential from `baseMs`,
 * capped, with full jitter so many failing jobs do not retry in lockstep.
 */
export function retryDelayMs(
  attempt: number,
  baseMs: number,
  capMs: number,
  random: () => number = Math.random,
): number {
  const exponential = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  // Half fixed, half random: never zero, never above the exponential step.
  return Math.round(exponential / 2 + random() * (exponential / 2));
}
