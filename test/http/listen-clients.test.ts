import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_STREAMS_PER_KEY } from '../../src/http/routes/listen.js';
import { cliFor } from '../helpers/cli.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers/service.js';
import { SseStream } from '../helpers/sse.js';

/**
 * The test events stream and its clients over real sockets (issue 38): a client that closes its
 * connection frees its stream slot at once (the server runs with `httpAllowHalfOpen`, so the
 * close arrives as the end of the client's input, not as a failed write), and a client that
 * stops reading is cut off after RESPONSE_IDLE_TIMEOUT_MS, while a stream that is merely quiet
 * stays open. Heartbeats are 10 minutes apart here: no write can reveal a closed client.
 */
const IDLE_MS = 1000;
let service: TestService;
/** The account, with its test key. */
let account: TestAccount;
let apiKey: string;

/** The server's ends of its connections, by the client's port. */
const serverSockets = new Map<number, net.Socket>();
/** Ports of the server sockets that reported an idle timeout. */
const timedOut = new Set<number>();

beforeAll(async () => {
  service = await startTestService(
    { RATE_LIMIT_PER_MINUTE: '0', RESPONSE_IDLE_TIMEOUT_MS: String(IDLE_MS) },
    'all',
    { listenTiming: { heartbeatMs: 600_000 } },
  );
  service.app.server.on('connection', (s: net.Socket) => {
    const port = s.remotePort;
    if (port === undefined) return;
    serverSockets.set(port, s);
    s.on('timeout', () => timedOut.add(port));
  });
  const live = await createAccount(service);
  const made = await cliFor(service, ['keys', 'create', '--partner', live.partnerId, '--mode', 'test']);
  if (made.code !== 0) throw new Error(`keys create --mode test failed: ${made.stderr}`);
  apiKey = made.json!.apiKey as string;
  account = { ...live, keyId: made.json!.keyId as string, apiKey };
});
afterAll(() => service?.stop());

async function open(lastEventId?: string): Promise<SseStream> {
  return SseStream.open(`${service.url}/v1/test/events/stream`, {
    'x-api-key': apiKey,
    ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
  });
}

/** A stream that has started (its first message arrived). */
async function started(): Promise<SseStream> {
  const stream = await open();
  expect(stream.status).toBe(200);
  await waitUntil(async () => stream.data('listen.started').length === 1, 10_000, 'the stream to start');
  return stream;
}

describe('a client that closes its stream', () => {
  it('frees its slot at once: the key opens a new stream without waiting for a heartbeat', async () => {
    const streams: SseStream[] = [];
    for (let i = 0; i < MAX_STREAMS_PER_KEY; i++) streams.push(await started());
    const refused = await open();
    expect(refused.status).toBe(429);
    refused.close();

    streams.shift()!.close();
    // Polled: the close reaches the server in a moment; before, only a failed write noticed it.
    const accepted = await waitUntil(
      async () => {
        const next = await open();
        if (next.status === 200) return next;
        next.close();
        return undefined;
      },
      10_000,
      'a new stream to be accepted after one was closed',
    );
    streams.push(accepted);

    // The streams left open are quiet, not stalled: an idle timeout passed over them and they
    // are still open.
    const quiet = streams.map((s) => s.localPort);
    await waitUntil(
      async () => quiet.every((port) => port !== undefined && timedOut.has(port)),
      30_000,
      'an idle timeout on the quiet streams',
    );
    for (const stream of streams) expect(stream.ended).toBe(false);
    for (const stream of streams) stream.close();
  });
});

describe('a client that stops reading its stream', () => {
  it('is cut off after RESPONSE_IDLE_TIMEOUT_MS, and its slot freed', async () => {
    // Where a stream starts now: the event made next comes after it.
    const first = await started();
    const startId = first.messages[0]!.id!;
    const accepted = await postSubmission(service, bodyFor(account), { apiKey });
    expect(accepted.status).toBe(202);
    const submissionId = accepted.json.submissionId as string;
    const delivered = await waitUntil(
      async () =>
        first
          .data<{ eventId: string; body: string }>('result.ready')
          .find((d) => JSON.parse(d.body).submissionId === submissionId),
      60_000,
      'the event on the stream',
    );
    first.close();
    // A large event: far more than the kernel's socket buffers on both sides hold.
    await service.store.driver.db
      .updateTable('webhook_events')
      .set({ body: JSON.stringify({ padding: 'x'.repeat(16 * 1024 * 1024) }) })
      .where('id', '=', delivered.eventId)
      .execute();

    const client = net.connect(Number(new URL(service.url).port), '127.0.0.1');
    client.on('error', () => {});
    await new Promise<void>((resolve) => client.once('connect', resolve));
    // The request, then nothing: the client never reads (and never half-closes).
    client.write(
      `GET /v1/test/events/stream HTTP/1.1\r\nHost: x\r\nX-Api-Key: ${apiKey}\r\nLast-Event-ID: ${startId}\r\n\r\n`,
    );
    client.pause();
    const serverSide = await waitUntil(
      async () => serverSockets.get(client.localPort!),
      10_000,
      'the server to accept the connection',
    );
    await waitUntil(async () => serverSide.destroyed, 30_000, 'the server to cut the stalled stream');
    // The server closed it, not the client.
    expect(client.destroyed).toBe(false);
    client.destroy();
    // Its slot is free: the key holds every slot again.
    const streams: SseStream[] = [];
    for (let i = 0; i < MAX_STREAMS_PER_KEY; i++) streams.push(await started());
    for (const stream of streams) stream.close();
  });
});
