import { durationMs } from '../domain/duration.js';

/**
 * How long after a rotation the new signing secret starts signing, unless the rotation says
 * otherwise: long enough for a receiver to deploy the new secret (both sign meanwhile). One
 * default for the API's `activateIn`, the CLI's `--activate-in` and the console's first choice.
 */
export const ROTATION_ACTIVATE_IN = '24h';

export const ROTATION_ACTIVATE_IN_MS = durationMs(ROTATION_ACTIVATE_IN) as number;

/** A rotation takes effect at most this far ahead (the API's, the console's and the CLI's bound). */
export const MAX_ACTIVATE_IN_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * How long until a rotated secret signs, for every surface: the default when none is given,
 * undefined for what is not a duration or is more than 30 days ahead (each surface says so in
 * its own words).
 */
export function rotationDelayMs(activateIn: string | undefined): number | undefined {
  const ms = activateIn === undefined ? ROTATION_ACTIVATE_IN_MS : durationMs(activateIn.trim());
  return ms === undefined || ms > MAX_ACTIVATE_IN_MS ? undefined : ms;
}
