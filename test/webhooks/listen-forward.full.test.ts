import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor } from '../helpers/cli.js';
import { waitUntil } from '../helpers/pipeline.js';
import { freePort } from '../helpers/processes.js';
import { type ReceivedDelivery, TestReceiver } from '../helpers/receiver.js';
import {
  bodyFor,
  createAccount,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers/service.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';

/**
 * `healthspan listen` (the client package's bin, run from its sources as its own process) against
 * the real service, forwarding to a real local receiver, with the stream going through a proxy
 * that drops every connection mid-way and refuses new ones for a while: once the proxy relays
 * again the command resumes with Last-Event-ID, and every event reaches the receiver exactly
 * once, signed with the key's listen secret; each answer is reported back as a `listen` attempt.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const LOADER = path.join(ROOT, 'test/loader/register.mjs');
const BIN = path.join(ROOT, 'packages/client/src/bin/healthspan.ts');

interface ListenProcess {
  child: ChildProcess;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
}

function startListen(baseUrl: string, apiKey: string, forwardTo: string): ListenProcess {
  const child = spawn(process.execPath, ['--import', LOADER, BIN, 'listen', '--forward-to', forwardTo], {
    env: { ...process.env, HEALTHSPAN_API_KEY: apiKey, HEALTHSPAN_BASE_URL: baseUrl },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout!.setEncoding('utf8').on('data', (c: string) => stdout.push(c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => stderr.push(c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout, stderr, exited };
}

let service: TestService;
let account: TestAccount;
let testKey: string;
const receiver = new TestReceiver();
let receiverUrl: string;
let proxy: TcpProxy;
const running: ListenProcess[] = [];

beforeAll(async () => {
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' });
  account = await createAccount(service);
  const made = await cliFor(service, ['keys', 'create', '--partner', account.partnerId, '--mode', 'test']);
  if (made.code !== 0) throw new Error(`keys create --mode test failed: ${made.stderr}`);
  testKey = made.json!.apiKey as string;
  receiverUrl = await receiver.start();
  proxy = await TcpProxy.open(service.url);
});

afterAll(async () => {
  for (const p of running) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
  await proxy?.stop();
  await receiver.stop();
  await service?.stop();
});

async function submitTest(): Promise<string> {
  const res = await postSubmission(service, bodyFor(account), { apiKey: testKey });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  return res.json.submissionId as string;
}

function receivedSubmissions(): string[] {
  return receiver.deliveries.map((d) => JSON.parse(d.rawBody.toString('utf8')).submissionId as string);
}

/** The `listen` attempts recorded for these forwards (each forward's answer, once reported). */
async function listenAttempts(deliveries: readonly ReceivedDelivery[]) {
  const eventIds = deliveries.map((d) => d.headers['x-healthspan-event-id'] as string);
  if (eventIds.length === 0) return [];
  return service.store.driver.db
    .selectFrom('webhook_attempts')
    .select(['event_id', 'kind', 'status_code', 'url'])
    .where('event_id', 'in', eventIds)
    .execute();
}

describe('healthspan listen', () => {
  it('forwards every test event once across a dropped connection, signed with the listen secret, and reports each answer', async () => {
    receiver.fallback = 202;
    const listen = startListen(proxy.via(service.url).replace(/\/$/, ''), testKey, receiverUrl);
    running.push(listen);
    const ready = await waitUntil(
      async () => /Your listen secret is (whsec_\S+)/.exec(listen.stdout.join('')),
      30_000,
      'the listen secret',
    );
    const secret = ready[1]!;

    const before = [await submitTest(), await submitTest()];
    await waitUntil(async () => receiver.deliveries.length >= 2, 60_000, 'the first two forwards');
    // Their answers are reported through the same proxy: wait for both reports before cutting it,
    // or a report in flight is cut with the stream (the command does not resend reports).
    await waitUntil(
      async () => (await listenAttempts(receiver.deliveries.slice(0, 2))).length >= 2,
      30_000,
      'the first two answers reported',
    );

    // The connection is cut mid-stream and no new one is let through while events happen.
    await proxy.stop();
    await waitUntil(
      async () => listen.stderr.join('').includes('The stream dropped'),
      30_000,
      'the drop noticed',
    );
    const during = [await submitTest(), await submitTest()];
    await waitUntil(
      async () => {
        const rows = await service.store.driver.db
          .selectFrom('submissions')
          .select(['id', 'status'])
          .where('id', 'in', during)
          .execute();
        return rows.every((r) => r.status === 'completed');
      },
      60_000,
      'the events made while disconnected',
    );
    await proxy.start();
    await waitUntil(async () => receiver.deliveries.length >= 4, 60_000, 'the missed events forwarded');
    const after = await submitTest();
    await waitUntil(
      async () => receivedSubmissions().includes(after),
      60_000,
      'an event after the reconnect',
    );

    const all = [...before, ...during, after];
    expect(receivedSubmissions().sort()).toEqual([...all].sort());
    const wh = new Webhook(secret);
    for (const d of receiver.deliveries) {
      expect(d.headers['x-healthspan-mode']).toBe('test');
      expect(d.headers['user-agent']).toBe('healthspan-webhooks/1');
      expect(d.headers['content-type']).toBe('application/json');
      expect(() => wh.verify(d.rawBody.toString('utf8'), d.headers as Record<string, string>)).not.toThrow();
    }
    // One line per event with the local answer (written once the answer is back).
    const lines = await waitUntil(
      async () => {
        const found = listen.stdout
          .join('')
          .split('\n')
          .filter((l) => l.includes('result.ready'));
        return found.length >= all.length ? found : undefined;
      },
      30_000,
      'a line per event',
    );
    expect(lines).toHaveLength(all.length);
    for (const l of lines) expect(l).toContain('--> 202');

    const attempts = await waitUntil(
      async () => {
        const rows = await listenAttempts(receiver.deliveries);
        return rows.length >= all.length ? rows : undefined;
      },
      30_000,
      'the answers reported',
    );
    expect(attempts).toHaveLength(all.length);
    for (const a of attempts) expect(a).toMatchObject({ kind: 'listen', status_code: 202, url: receiverUrl });

    listen.child.kill('SIGTERM');
    expect(await listen.exited).toBe(0);
  });

  it('stops with TEST_MODE_ONLY for a live key', async () => {
    const listen = startListen(service.url, account.apiKey, receiverUrl);
    running.push(listen);
    expect(await listen.exited).toBe(1);
    expect(listen.stderr.join('')).toContain('TEST_MODE_ONLY');
  });

  it('says it cannot reach the service when it never connected, and that the stream dropped once it had', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    const listen = startListen(nobody, testKey, receiverUrl);
    running.push(listen);
    await waitUntil(
      async () => listen.stderr.join('').includes('Trying again'),
      30_000,
      'listen told it cannot reach the service',
    );
    const told = listen.stderr.join('');
    expect(told).toMatch(
      new RegExp(
        `^Cannot reach the service at ${nobody} \\(fetch failed: ECONNREFUSED\\); check --base-url or HEALTHSPAN_BASE_URL and that the service runs\\. Trying again in 250 ms\\.\n`,
      ),
    );
    expect(told).not.toContain('The stream dropped');
    listen.child.kill('SIGTERM');
    expect(await listen.exited).toBe(0);
  });
});
