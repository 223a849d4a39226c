import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { TestS3Server } from '../helpers/s3.js';
import { tempDataDir, testStoreKind } from '../helpers/service.js';

/** `healthspan-admin doctor`: the database and the object store, checked as the service needs them. */

let s3: TestS3Server;
let database: TestDatabase | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  s3 = await TestS3Server.start();
  if (testStoreKind() === 'postgres') database = await createTestDatabase();
  env = { DATA_DIR: tempDataDir(), ...(database ? { DATABASE_URL: database.url } : {}) };
  const migrated = await runCli(env, ['migrate']);
  expect(migrated.code).toBe(0);
});

afterAll(async () => {
  await database?.drop();
  await s3?.close();
});

describe('healthspan-admin doctor', () => {
  it('says both stores answer: the database, and the bucket where a probe object was written, read and deleted', async () => {
    const run = await runCli({ ...env, ...s3.env('doctor') }, ['doctor']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      database: { ok: true },
      artifacts: { ok: true, where: 's3://healthspan-test/doctor/' },
    });
    // The probe object is gone again.
    expect(s3.keys().filter((k) => k.includes('.probe-'))).toEqual([]);

    const embedded = await runCli(env, ['doctor']);
    expect(embedded.code).toBe(0);
    expect(embedded.json).toMatchObject({
      artifacts: { ok: true, where: 'the database (artifact_contents)' },
    });
  });

  it('fails with one sentence naming the setting for a missing bucket and for a store that is not running', async () => {
    const missing = await runCli({ ...env, ...s3.env('doctor', 'no-such-bucket') }, ['doctor']);
    expect(missing.code).toBe(1);
    expect(missing.json).toMatchObject({ database: { ok: true }, artifacts: { ok: false } });
    expect(missing.stderr.trim()).toMatch(
      /^healthspan-admin: ARTIFACT_STORE: the bucket no-such-bucket does not exist/,
    );
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);

    await s3.stop();
    try {
      const down = await runCli({ ...env, ...s3.env('doctor') }, ['doctor']);
      expect(down.code).toBe(1);
      expect(down.stderr.trim()).toMatch(
        /^healthspan-admin: AWS_ENDPOINT_URL_S3: the object store for s3:\/\/healthspan-test\/doctor\/ did not answer/,
      );
      expect(down.stderr).not.toMatch(/\n\s+at /);
    } finally {
      await s3.start();
    }
  });
});
