// The object store a benchmark runs against with `--artifacts s3`: s3rver (the tests' server,
// test/fixtures/s3-server.mjs) in a process of its own on a free loopback port, so its CPU is
// counted apart from the service's. s3rver stores each object as a file and checks no signature:
// it stands in for S3's protocol, not its speed (docs/object-storage.md).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const SERVER = path.resolve(import.meta.dirname, '../../test/fixtures/s3-server.mjs');
const BUCKET = 'healthspan-bench';

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function startBenchObjectStore() {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-bench-s3-'));
  const port = await freePort();
  const child = spawn(process.execPath, [SERVER, String(port), directory, BUCKET], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      if (String(c).includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code})`)));
  });
  const env = {
    ARTIFACT_STORE: `s3://${BUCKET}/reports`,
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${port}`,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
  };
  return {
    pid: child.pid,
    env,
    /** Bytes of the objects' files (with s3rver's metadata files beside them). */
    bytes() {
      let total = 0;
      for (const f of fs.readdirSync(directory, { recursive: true })) {
        const stat = fs.statSync(path.join(directory, f));
        if (stat.isFile()) total += stat.size;
      }
      return total;
    },
    async close() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * The S3 client's own CPU per object, as the service uses it (`S3ArtifactStore` from dist/):
 * `count` PUTs of `size` bytes, one artifact each, after a warm-up, in this process.
 */
export async function clientCpuPerPut(env, size = 37 * 1024, count = 300) {
  const { loadConfig } = await import('../../dist/config.js');
  const { S3ArtifactStore } = await import('../../dist/store/object-store/s3-artifact-store.js');
  const store = new S3ArtifactStore(loadConfig(env).objectStore);
  const body = Buffer.alloc(size, 7);
  const sha256 = createHash('sha256').update(body).digest('hex');
  const put = (i) => store.write([{ artifactId: `client-${i}`, body, sha256 }]);
  for (let i = 0; i < 30; i++) await put(i);
  const before = process.cpuUsage();
  for (let i = 0; i < count; i++) await put(i);
  const used = process.cpuUsage(before);
  await store.close();
  return (used.user + used.system) / 1000 / count;
}
