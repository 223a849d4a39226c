import { durationMs } from '../domain/duration.js';

/**
 * How long after a rotation the new signing secret starts signing, unless the rotation says
 * otherwise: long enough for a receiver to deploy the new secret (both sign meanwhile). One
 * default for the API's `activateIn`, the CLI's `--activate-in` and the console's first choice.
 */
export const ROTATION_ACTIVATE_IN = '24h';

export const ROTATION_ACTIVATE_IN_MS = durationMs(ROTATION_ACTIVATE_IN) as number;
