import { Option } from 'commander';
import { DURATION_EXAMPLES, durationMs } from '../domain/duration.js';
import { isUuid } from '../domain/ids.js';
import { API_MODES } from '../domain/mode.js';

/** A failure the operator caused (bad id, bad flag): message only, exit 1. */
export class UsageError extends Error {}

export function requireUuid(value: string, what: string): string {
  if (!isUuid(value)) throw new UsageError(`${what} must be a UUID, got "${value}"`);
  return value.toLowerCase();
}

export function requireName(value: string): string {
  const name = value.trim();
  if (name.length < 1 || name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
  return name;
}

/** `--limit` of the listing commands. */
export function requireLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new UsageError('--limit must be a whole number from 1 to 1000');
  }
  return limit;
}

/** A duration option (`domain/duration.ts`: the settings' and the API's grammar) in milliseconds. */
export function durationOption(value: string, flag: string): number {
  const ms = durationMs(value.trim());
  if (ms === undefined)
    throw new UsageError(`${flag} must be a duration such as ${DURATION_EXAMPLES}, got "${value}"`);
  return ms;
}

/** `--mode`: which of an account's two data sets a command works on (docs/sandbox.md). */
export const modeOption = (what: string) =>
  new Option('--mode <mode>', `live, or test for the ${what} of test mode`)
    .choices(API_MODES)
    .default('live');
