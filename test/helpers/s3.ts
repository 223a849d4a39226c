import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SUITE_SECRET, TEST_BUCKET } from './object-store-under-test.js';
import { freePort } from './processes.js';

export { TEST_BUCKET };

const SERVER = path.resolve(import.meta.dirname, '../fixtures/s3-server.mjs');

/**
 * An S3-compatible server (s3rver 3.7, from npm) on a free loopback port, its objects under a
 * temporary directory. It checks the access key id (`S3RVER`), and a front in the fixture checks
 * every request's SigV4 signature (header or presigned URL) against `secret`; it shows neither
 * access control nor speed (docs/object-storage.md). `stop` and `start` end and restart its
 * process on the same port and directory, for the fault tests.
 */
export class TestS3Server {
  private child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly directory: string,
    /** A front checks every request's SigV4 signature (header or presigned) against it. */
    readonly secret: string,
  ) {}

  static async start(
    buckets: string[] = [TEST_BUCKET],
    opts: { secret?: string } = {},
  ): Promise<TestS3Server> {
    const server = new TestS3Server(
      await freePort(),
      fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-s3-')),
      opts.secret ?? SUITE_SECRET,
    );
    await server.start(buckets);
    return server;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The service's settings for this server's bucket under `prefix`. */
  env(prefix = 'reports', bucket = TEST_BUCKET): Record<string, string> {
    return {
      ARTIFACT_STORE: `s3://${bucket}/${prefix}`,
      AWS_ENDPOINT_URL_S3: this.endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'S3RVER',
      // Checked by the fixture's front; it must never be logged.
      AWS_SECRET_ACCESS_KEY: this.secret,
    };
  }

  async start(buckets: string[] = [TEST_BUCKET]): Promise<void> {
    const child = spawn(
      process.execPath,
      [SERVER, String(this.port), this.directory, ...buckets, '--secret', this.secret],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    this.child = child;
    const output: string[] = [];
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on('data', (c: Buffer) => {
        output.push(c.toString());
        if (output.join('').includes('listening')) resolve();
      });
      child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
      child.once('exit', (code) => reject(new Error(`s3rver exited (${code}): ${output.join('')}`)));
    });
  }

  /** Ends the server's process (its objects stay in `directory`). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  /** Every stored file's bytes under the server's directory (objects and their metadata). */
  files(): Buffer[] {
    return (fs.readdirSync(this.directory, { recursive: true }) as string[])
      .map((f) => path.join(this.directory, f))
      .filter((f) => fs.statSync(f).isFile())
      .map((f) => fs.readFileSync(f));
  }

  /** The object keys stored in `bucket` (s3rver keeps each as `key._S3rver_object`). */
  keys(bucket = TEST_BUCKET): string[] {
    const root = path.join(this.directory, bucket);
    if (!fs.existsSync(root)) return [];
    return (fs.readdirSync(root, { recursive: true }) as string[])
      .filter((f) => f.endsWith('._S3rver_object'))
      .map((f) => f.slice(0, -'._S3rver_object'.length));
  }

  async close(): Promise<void> {
    await this.stop();
    fs.rmSync(this.directory, { recursive: true, force: true });
  }
}
