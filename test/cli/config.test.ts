import { describe, expect, it } from 'vitest';
import { loadConfig, SETTINGS } from '../../src/config.js';
import { WORKER_DEFAULTS } from '../../src/queue/defaults.js';
import { runCli } from '../helpers/cli.js';
import { tempDataDir } from '../helpers/service.js';

/** `healthspan-admin config`: every setting's effective value and source, secrets masked. */

const SECRETS = {
  WEBHOOK_SECRETS_KEY: 'webhook-master-key-0123456789abcdef-XYZ',
  DOWNLOAD_SIGNING_SECRET: 'download-signing-secret-0123456789-QRS',
  DATABASE_URL: 'postgres://svc:pg-password-7431@db.example:5432/healthspan',
  REDIS_URL: 'redis://:redis-password-9902@cache.example:6379/0',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-access-key-5566',
};

describe('healthspan-admin config', () => {
  it('prints every setting with its value and source, and no secret', async () => {
    const dataDir = tempDataDir();
    const run = await runCli(
      {
        ...SECRETS,
        DATA_DIR: dataDir,
        PORT: '9091',
        WEBHOOK_ALLOW_INSECURE: 'yes',
        // Empty counts as unset: the default applies even if this process's environment has one.
        WORKER_CONCURRENCY: '',
        METRICS_PORT: '',
        PUBLIC_BASE_URL: '',
        WEBHOOK_DISABLE_AFTER: '',
        WEBHOOK_RETRY_SCHEDULE: '',
        ARTIFACT_STORE: 's3://reports-bucket/prod/',
        AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
        AWS_REGION: 'eu-west-1',
      },
      ['config'],
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const settings = run.json as Record<string, { value: unknown; source: string }>;
    expect(Object.keys(settings).sort()).toEqual(Object.keys(SETTINGS).sort());
    expect(settings).toMatchObject({
      PORT: { value: 9091, source: 'env' },
      DATA_DIR: { value: dataDir, source: 'env' },
      WEBHOOK_ALLOW_INSECURE: { value: true, source: 'env' },
      WORKER_CONCURRENCY: { value: WORKER_DEFAULTS.concurrency, source: 'default' },
      METRICS_PORT: { value: null, source: 'default' },
      // The configuration's values: durations in milliseconds, the base URL from the port.
      WEBHOOK_RETRY_SCHEDULE: { value: loadConfig({}).webhookRetryScheduleMs, source: 'default' },
      WEBHOOK_DISABLE_AFTER: { value: 5 * 24 * 3600 * 1000, source: 'default' },
      PUBLIC_BASE_URL: { value: 'http://localhost:9091', source: 'default' },
      ARTIFACT_STORE: { value: 's3://reports-bucket/prod/', source: 'env' },
      WEBHOOK_SECRETS_KEY: { value: '***', source: 'env' },
      DOWNLOAD_SIGNING_SECRET: { value: '***', source: 'env' },
      DATABASE_URL: { value: 'postgres://svc:***@db.example:5432/healthspan', source: 'env' },
      REDIS_URL: { value: 'redis://:***@cache.example:6379/0', source: 'env' },
    });
    for (const secret of Object.values(SECRETS)) expect(run.stdout).not.toContain(secret);
    for (const part of ['pg-password-7431', 'redis-password-9902']) expect(run.stdout).not.toContain(part);
  });

  it('shows an unset secret as unset, and refuses a bad setting with the sentence the server gives', async () => {
    const unset = await runCli(
      { DATA_DIR: tempDataDir(), WEBHOOK_SECRETS_KEY: '', DOWNLOAD_SIGNING_SECRET: '' },
      ['config'],
    );
    expect(unset.code).toBe(0);
    expect(unset.json).toMatchObject({
      WEBHOOK_SECRETS_KEY: { value: null, source: 'default' },
      DOWNLOAD_SIGNING_SECRET: { value: null, source: 'default' },
    });

    const bad = await runCli(
      { DATA_DIR: tempDataDir(), HEADERS_TIMEOUT_MS: '20000', REQUEST_TIMEOUT_MS: '10000' },
      ['config'],
    );
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim()).toBe(
      'healthspan-admin: REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS',
    );
  });
});
