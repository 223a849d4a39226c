// npm run bench:s3-clients [-- --n 300 --warmup 50 --rounds 3]
// The CPU one 37 KiB PutObject costs in the client's process, for each S3 client weighed in
// docs/object-storage.md ("The S3 client, measured"): @aws-sdk/client-s3 (defaults, and tuned),
// s3mini, minio and the service's own aws4-signed node:http PUT with the sha256 already known.
// The server, in a child process, drains each body and answers 200 with an ETag. Each round
// warms each client up, then times --n PUTs one at a time (process.cpuUsage); the clients take
// turns over --rounds rounds, so a drift in the machine's load hits each alike, and the min–max
// over rounds is printed. The candidates the project does not depend on are installed (npm,
// --no-save) into test-output/bench-s3-clients/ on the first run and loaded from there.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import aws4 from 'aws4';
import { Client as MinioClient } from 'minio';

const root = path.resolve(import.meta.dirname, '..');
const option = (fallback) => ({ type: 'string', default: fallback });
const { values } = parseArgs({ options: { n: option('300'), warmup: option('50'), rounds: option('3') } });
const [N, WARMUP, ROUNDS] = [values.n, values.warmup, values.rounds].map(Number);
if (!(N >= 1 && WARMUP >= 0 && ROUNDS >= 1)) throw new Error('--n and --rounds must be ≥ 1, --warmup ≥ 0');
const BUCKET = 'bench';
const REGION = 'us-east-1';
const CREDENTIALS = { accessKeyId: 'BENCHKEY', secretAccessKey: 'bench-secret-not-real' };
const BODY = Buffer.alloc(37 * 1024, 'x');
const BODY_SHA256 = createHash('sha256').update(BODY).digest('hex');
const CACHE = path.join(root, 'test-output', 'bench-s3-clients');
const CANDIDATES = ['@aws-sdk/client-s3@3', 's3mini@latest'];

/** The candidates from the cache folder, installed there (all at once: npm prunes) if one is missing. */
function installCandidates() {
  fs.mkdirSync(CACHE, { recursive: true });
  const installed = (spec) => fs.existsSync(path.join(CACHE, 'node_modules', spec.replace(/@[^@]*$/, '')));
  if (!CANDIDATES.every(installed)) {
    console.error(`installing ${CANDIDATES.join(' ')} into ${path.relative(root, CACHE)}`);
    const args = ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', CACHE, ...CANDIDATES];
    execFileSync('npm', args, { stdio: ['ignore', process.stderr, process.stderr] });
  }
  return createRequire(path.join(CACHE, 'package.json'));
}

const SERVER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { ETag: '"bench"', 'Content-Length': '0' }).end());
});
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
process.on('disconnect', () => process.exit(0));
`;

/** The loopback S3 stand-in, in a process of its own; resolves with it and its port. */
function startServer() {
  const child = spawn(process.execPath, ['-e', SERVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (port) => resolve({ child, port }));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
}

const keepAlive = () => new http.Agent({ keepAlive: true, maxSockets: 32 });

/** Each client: a label and a factory of { put(key), close() }. */
function clientsFor(port, requireCache) {
  const endpoint = `http://127.0.0.1:${port}`;
  const own = createRequire(import.meta.url);
  const sdk = `\`@aws-sdk/client-s3\` ${versionOf(requireCache, '@aws-sdk/client-s3')}`;
  return [
    { label: `${sdk}, defaults`, make: () => awsSdk(requireCache, endpoint, false) },
    { label: `${sdk}, keep-alive agent, WHEN_REQUIRED`, make: () => awsSdk(requireCache, endpoint, true) },
    {
      label: `\`s3mini\` ${versionOf(requireCache, 's3mini')} (on \`fetch\`)`,
      make: () => s3mini(requireCache, endpoint),
    },
    { label: `\`minio\` ${versionOf(own, 'minio')}, keep-alive agent`, make: () => minio(port) },
    {
      label: `\`node:http\` + \`aws4\` ${versionOf(own, 'aws4')}, known sha256`,
      make: () => signedPut(port),
    },
  ];
}

function versionOf(requireFrom, name) {
  try {
    return requireFrom(`${name}/package.json`).version;
  } catch {
    return '(not installed)';
  }
}

/** Defaults, or tuned: a keep-alive agent of ours and no checksum unless the operation needs one. */
function awsSdk(requireCache, endpoint, tuned) {
  const { S3Client, PutObjectCommand } = requireCache('@aws-sdk/client-s3');
  const agent = tuned ? keepAlive() : undefined;
  const client = new S3Client({
    region: REGION,
    endpoint,
    forcePathStyle: true,
    credentials: CREDENTIALS,
    ...(tuned ? { requestHandler: { httpAgent: agent }, requestChecksumCalculation: 'WHEN_REQUIRED' } : {}),
  });
  const put = (key) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: BODY }));
  const close = () => {
    client.destroy();
    agent?.destroy();
  };
  return { put, close };
}

function s3mini(requireCache, endpoint) {
  const { S3mini } = requireCache('s3mini');
  const client = new S3mini({ ...CREDENTIALS, endpoint: `${endpoint}/${BUCKET}`, region: REGION });
  return { put: (key) => client.putObject(key, BODY), close: () => {} };
}

function minio(port) {
  const agent = keepAlive();
  const keys = { accessKey: CREDENTIALS.accessKeyId, secretKey: CREDENTIALS.secretAccessKey };
  const options = { endPoint: '127.0.0.1', port, useSSL: false, region: REGION, pathStyle: true };
  const client = new MinioClient({ ...options, ...keys, transportAgent: agent });
  return { put: (key) => client.putObject(BUCKET, key, BODY, BODY.length), close: () => agent.destroy() };
}

/** What src/store/object-store/signed-put.ts does: aws4 signs, the row's sha256 as payload hash. */
function signedPut(port) {
  const agent = keepAlive();
  const host = `127.0.0.1:${port}`;
  const put = (key) => {
    const headers = {
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(BODY.length),
      'X-Amz-Content-Sha256': BODY_SHA256,
    };
    const signed = aws4.sign(
      { host, path: `/${BUCKET}/${key}`, method: 'PUT', service: 's3', region: REGION, headers },
      CREDENTIALS,
    );
    return new Promise((resolve, reject) => {
      const req = http.request(
        { hostname: '127.0.0.1', port, method: 'PUT', path: signed.path, headers: signed.headers, agent },
        (res) => {
          res.resume();
          if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
          else res.once('end', resolve);
        },
      );
      req.once('error', reject);
      req.end(BODY);
    });
  };
  return { put, close: () => agent.destroy() };
}

/** CPU ms per PUT of `count` sequential PUTs, in this process. */
async function measure(client, count, tag) {
  const before = process.cpuUsage();
  for (let i = 0; i < count; i += 1) await client.put(`${tag}/${i}`);
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / count;
}

async function main() {
  let requireCache;
  try {
    requireCache = installCandidates();
  } catch (error) {
    console.error(`could not install ${CANDIDATES.join(' ')}: ${error.message}`);
    requireCache = () => {
      throw new Error(`not installed (${error.message.split('\n')[0]})`);
    };
  }
  const { child, port } = await startServer().catch((error) => {
    throw new Error(`the loopback server did not start: ${error.message}`);
  });
  const entries = clientsFor(port, requireCache).map((c) => ({ ...c, results: [] }));
  const loadAtStart = os.loadavg();
  for (let round = 1; round <= ROUNDS; round += 1) {
    for (const entry of entries.filter((e) => e.error === undefined)) {
      try {
        entry.client ??= await entry.make();
        await measure(entry.client, WARMUP, `warmup-${round}`);
        entry.results.push(await measure(entry.client, N, `round-${round}`));
      } catch (error) {
        entry.error = error;
        console.error(`${entry.label} failed in round ${round}: ${error?.stack ?? error}`);
      }
    }
  }
  const loadAtEnd = os.loadavg();
  for (const entry of entries) entry.client?.close();
  child.disconnect();
  report(entries, loadAtStart, loadAtEnd);
}

function report(entries, loadAtStart, loadAtEnd) {
  const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
  const cores = os.availableParallelism();
  console.log(`node ${process.version}, ${cores} cores, load average at start ${load(loadAtStart)}`);
  console.log(`(at end ${load(loadAtEnd)}); ${N} PUTs of ${BODY.length / 1024} KiB per client and round,`);
  console.log(`one at a time, after ${WARMUP} warm-up PUTs; ${ROUNDS} rounds, the clients alternated\n`);
  console.log('| client | CPU per PUT (min–max over rounds) |');
  console.log('|---|---|');
  for (const { label, results, error } of entries) {
    const range = results.length
      ? `${Math.min(...results).toFixed(2)}–${Math.max(...results).toFixed(2)} ms`
      : '';
    const failed = error ? `failed: ${String(error.message ?? error).split('\n')[0]}` : '';
    console.log(`| ${label} | ${[range, failed].filter(Boolean).join('; ')} |`);
  }
}

await main();
