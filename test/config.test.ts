import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseDurationMs, SETTINGS } from '../src/config.js';
import { CLEANER_DEFAULTS, WORKER_DEFAULTS } from '../src/queue/defaults.js';

const README = fs.readFileSync(path.resolve(import.meta.dirname, '../README.md'), 'utf8');

describe('configuration', () => {
  it('README documents every setting with its default, and nothing else', () => {
    const rows = [...README.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*(`[^`]*`|unset)\s*\|/gm)].map((m) => ({
      name: m[1]!,
      default: m[2] === 'unset' ? undefined : m[2]!.slice(1, -1),
    }));
    const documented = Object.fromEntries(rows.map((r) => [r.name, r.default]));
    const defined = Object.fromEntries(Object.entries(SETTINGS).map(([k, v]) => [k, v.default]));
    expect(documented).toEqual(defined);
  });

  it('loads the defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.host).toBe('0.0.0.0');
    expect(config.publicBaseUrl).toBe('http://localhost:8080');
    expect(config.rateLimitPerMinute).toBe(600);
    expect(config.webhookRetryScheduleMs).toEqual([0, 5e3, 3e5, 18e5, 72e5, 18e6, 36e6, 36e6]);
    expect(config.webhookAllowInsecure).toBe(false);
    expect(config.bodyLimitBytes).toBe(1024 * 1024);
  });

  it('loads the queue’s defaults from its one table, spelled as the README spells them', () => {
    const config = loadConfig({});
    expect(config.workerConcurrency).toBe(WORKER_DEFAULTS.concurrency);
    expect(config.jobLeaseSeconds * 1000).toBe(WORKER_DEFAULTS.leaseMs);
    expect(config.jobRetryBaseMs).toBe(WORKER_DEFAULTS.retryBaseMs);
    expect(config.jobRetentionMs).toBe(CLEANER_DEFAULTS.jobRetentionMs);
    expect(config.idempotencyRetentionMs).toBe(CLEANER_DEFAULTS.idempotencyRetentionMs);
    expect(config.retentionDays).toBe(CLEANER_DEFAULTS.retentionDays);
    expect(config.auditRetentionDays).toBe(CLEANER_DEFAULTS.auditRetentionDays);
    expect([SETTINGS.JOB_RETENTION.default, SETTINGS.IDEMPOTENCY_RETENTION.default]).toEqual(['7d', '1d']);
    expect(SETTINGS.JOB_RETRY_BASE_MS.doc).toContain('capped at 5 minutes');
  });

  it('reads the object store from ARTIFACT_STORE and the standard AWS variables', () => {
    expect(loadConfig({}).objectStore).toBeUndefined();
    const aws = { AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' };
    const onAws = loadConfig({ ARTIFACT_STORE: 's3://reports-bucket', AWS_REGION: 'eu-west-1', ...aws });
    expect(onAws.objectStore).toMatchObject({
      bucket: 'reports-bucket',
      prefix: '',
      region: 'eu-west-1',
      pathStyle: false,
      accessKeyId: 'AKIDEXAMPLE',
    });
    expect(onAws.objectStore?.endpoint.href).toBe('https://s3.eu-west-1.amazonaws.com/');
    const elsewhere = loadConfig({
      ARTIFACT_STORE: 's3://reports/healthspan/prod/',
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:9000',
      ...aws,
    });
    expect(elsewhere.objectStore).toMatchObject({
      prefix: 'healthspan/prod/',
      pathStyle: true,
      region: 'us-east-1',
    });
  });

  it.each([
    [{ ARTIFACT_STORE: 'reports' }, 'ARTIFACT_STORE: must look like s3://bucket'],
    [{ ARTIFACT_STORE: 's3://Bad_Bucket' }, 'ARTIFACT_STORE: must look like s3://bucket'],
    [{ ARTIFACT_STORE: 's3://reports' }, 'ARTIFACT_STORE: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY'],
    [
      {
        ARTIFACT_STORE: 's3://reports',
        AWS_ENDPOINT_URL_S3: 'ftp://x',
        AWS_ACCESS_KEY_ID: 'a',
        AWS_SECRET_ACCESS_KEY: 'b',
      },
      'AWS_ENDPOINT_URL_S3: must start with http:// or https://',
    ],
  ])('refuses the object store setting %o with one sentence naming it', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['RATE_LIMIT_PER_MINUTE', '-1'],
    ['WEBHOOK_RETRY_SCHEDULE', '5s,soon'],
    ['WEBHOOK_ALLOW_INSECURE', 'maybe'],
    ['LOG_LEVEL', 'loud'],
    ['PUBLIC_BASE_URL', 'not a url'],
  ])('rejects %s=%s with a message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('parses durations', () => {
    expect(parseDurationMs('90d')).toBe(90 * 86_400_000);
    expect(parseDurationMs('250ms')).toBe(250);
    expect(() => parseDurationMs('1w')).toThrow(ConfigError);
  });
});
