import { loadConfig, readSetting, SETTINGS, type SettingName } from './config.js';

/** Where a setting's effective value came from: its environment variable or its default. */
export type SettingSource = 'env' | 'default';

export interface EffectiveSetting {
  value: unknown;
  source: SettingSource;
}

const MASK = '***';

/**
 * Every setting's effective value (as its schema reads it; `null` when unset) and its source, for
 * `healthspan-admin config`. Secrets are masked, and so is any password inside a URL
 * (`DATABASE_URL`, `REDIS_URL`): the answer may be pasted into a ticket. The whole configuration
 * is loaded first so that a setting the service would refuse is refused here too, with its sentence.
 */
export function effectiveSettings(
  env: NodeJS.ProcessEnv = process.env,
): Record<SettingName, EffectiveSetting> {
  loadConfig(env);
  const names = Object.keys(SETTINGS) as SettingName[];
  return Object.fromEntries(
    names.map((name) => {
      const setting = SETTINGS[name];
      const source: SettingSource = env[name] === undefined || env[name] === '' ? 'default' : 'env';
      const value: unknown = readSetting(env, name) ?? null;
      const shown = value !== null && 'secret' in setting ? MASK : withoutPassword(value);
      return [name, { value: shown, source }];
    }),
  ) as Record<SettingName, EffectiveSetting>;
}

/** A URL with its password replaced by the mask; anything else as it is. */
function withoutPassword(value: unknown): unknown {
  if (typeof value !== 'string' || !value.includes('@')) return value;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  if (url.password === '') return value;
  url.password = MASK;
  return url.href;
}
