import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';

/** The bucket the tests' S3-compatible server makes (test/helpers/s3.ts). */
export const TEST_BUCKET = 'healthspan-test';

/** The postgres-s3 project's secret: its server checks every request's signature against it. */
export const SUITE_SECRET = 's3rver-secret-never-logged';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Set by the postgres-s3 project's global setup: the run's S3-compatible server. */
    s3Endpoint: string;
  }
}

/**
 * The settings of the run's object store, for every service a test starts in the postgres-s3
 * project; with `HEALTHSPAN_TEST_ARTIFACTS=files` on SQLite (by hand: the embedded
 * default keeps its bytes in the database), the embedded store's files for them.
 */
export function objectStoreUnderTest(): Record<string, string> {
  const mode = process.env.HEALTHSPAN_TEST_ARTIFACTS;
  if (mode === 'files' && process.env.HEALTHSPAN_TEST_STORE !== 'postgres') {
    return { EMBEDDED_ARTIFACTS: mode };
  }
  if (mode !== 's3') return {};
  return {
    ARTIFACT_STORE: `s3://${TEST_BUCKET}/suite-${randomUUID()}`,
    AWS_ENDPOINT_URL_S3: inject('s3Endpoint'),
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: SUITE_SECRET,
  };
}
