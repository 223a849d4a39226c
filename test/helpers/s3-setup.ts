import type { TestProject } from 'vitest/node';
import { TestS3Server } from './s3.js';

/**
 * Global setup of the `postgres-s3` project: one S3-compatible server (s3rver) for the run, which
 * every service a test starts keeps its report bytes in (`objectStoreUnderTest`), each under a
 * prefix of its own; every request's signature is checked against the suite's secret.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const server = await TestS3Server.start();
  project.provide('s3Endpoint', server.endpoint);
  return () => server.close();
}
