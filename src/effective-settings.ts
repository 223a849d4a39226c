import { loadConfig, readSetting, SETTINGS, type SettingName } from './config.js';

/** Where a setting's effective value came from: its environment variable or its default. */
export type SettingSource = 'env' | 'default';

export interface EffectiveSetting {
  value: unknown;
  source: SettingSource;
}

const MASK = '***';

/**
 * Every setting's effective value (its value in the configuration, `null` when unset; for
 * `ARTIFACT_STORE`, read with the `AWS_*` variables, as written) and its source, for
 * `healthspan-admin config`. Secrets are masked, and so is any password inside a URL
 * (`DATABASE_URL`, `REDIS_URL`): the answer may be pasted into a ticket. The whole configuration
 * is loaded, so a setting the service would refuse is refused here too, with the same sentence.
 */
export function effectiveSettings(
  env: NodeJS.ProcessEnv = process.env,
): Record<SettingName, EffectiveSetting> {
  const config = loadConfig(env);
  const names = Object.keys(SETTINGS) as SettingName[];
  return Object.fromEntries(
    names.map((name) => {
      const setting = SETTINGS[name];
      const source: SettingSource = env[name] === undefined || env[name] === '' ? 'default' : 'env';
      const value: unknown = ('key' in setting ? config[setting.key] : readSetting(env, name)) ?? null;
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
