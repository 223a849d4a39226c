import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { resultSchema } from '../../src/http/result-body.js';
import { alterStoredBytes } from '../helpers/artifact-bytes.js';
import { completeSubmission, waitUntil } from '../helpers/pipeline.js';
import { getJson, serviceWithAccount } from '../helpers/service.js';

/**
 * RESPONSE_IDLE_TIMEOUT_MS (issue 32): a client that stops reading a large answer loses its
 * connection; one that keeps reading, however slowly, gets every byte.
 */
const IDLE_MS = 1000;
const ctx = serviceWithAccount({ RESPONSE_IDLE_TIMEOUT_MS: String(IDLE_MS) });

/** Far more than the kernel's socket buffers on both sides hold (a few MiB on loopback). */
const SIZE = 24 * 1024 * 1024;
let downloadPath = '';

beforeAll(async () => {
  const resultId = await completeSubmission(ctx.service, ctx.account);
  const res = await getJson(ctx.service, `/v1/results/${resultId}`, { 'x-api-key': ctx.account.apiKey });
  const item = resultSchema.parse(res.json).artifacts.items.find((i) => i.type === 'json')!;
  // A large artifact: its stored bytes and what the row records of them.
  const body = randomBytes(SIZE);
  const db = ctx.service.store.driver.db;
  await alterStoredBytes(ctx.service, item.artifactId, body);
  await db
    .updateTable('artifacts')
    .set({ sha256: createHash('sha256').update(body).digest('hex'), byte_size: SIZE })
    .where('id', '=', item.artifactId)
    .execute();
  ctx.service.app.server.on('connection', (s: net.Socket) => {
    if (s.remotePort !== undefined) serverSockets.set(s.remotePort, s);
  });
  const url = new URL(item.access!.downloadUrl);
  downloadPath = `${url.pathname}${url.search}`;
});

interface Download {
  /** Resolves once the client's socket closed: the bytes it received in all. */
  closed: Promise<number>;
  /** The server's end of this connection, once it accepted it. */
  serverSide: Promise<net.Socket>;
  socket: net.Socket;
}

/** The server's ends of its connections, by the client's port. */
const serverSockets = new Map<number, net.Socket>();

/** A raw GET of the artifact whose reading `onData` paces (it may pause the socket). */
function download(onData: (socket: net.Socket, received: number) => void): Download {
  const socket = net.connect(Number(new URL(ctx.service.url).port), '127.0.0.1');
  const serverSide = new Promise<void>((resolve) => socket.once('connect', resolve)).then(() =>
    waitUntil(
      async () => serverSockets.get(socket.localPort!),
      30_000,
      'the server to accept the connection',
    ),
  );
  let received = 0;
  const closed = new Promise<number>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
      onData(socket, received);
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(received));
  });
  socket.write(`GET ${downloadPath} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
  return { closed, serverSide, socket };
}

describe('a client that stops reading an answer', () => {
  it('has its connection closed by the server, the answer cut short', async () => {
    let stopped = false;
    const reader = download((socket, received) => {
      // Stops after the first 256 KiB, as a stalled download would.
      if (stopped || received < 256 * 1024) return;
      stopped = true;
      socket.pause();
    });
    const serverSide = await reader.serverSide;
    // Without the timeout the server's socket stayed open as long as the client's.
    await waitUntil(async () => serverSide.destroyed, 30_000, 'the server to close the stalled connection');
    expect(reader.socket.destroyed).toBe(false);
    // The client, reading again, finds what the kernel had buffered and then the end.
    reader.socket.resume();
    const received = await reader.closed;
    expect(received).toBeLessThan(SIZE);
  });
});

describe('a client that keeps reading', () => {
  it('gets the whole answer, even when it pauses for less than the timeout', async () => {
    let pausedAt = 0;
    const reader = download((socket, received) => {
      // A slow download: a pause of a tenth of the timeout after every MiB.
      if (received - pausedAt < 1024 * 1024) return;
      pausedAt = received;
      socket.pause();
      setTimeout(() => socket.resume(), IDLE_MS / 10);
    });
    const received = await reader.closed;
    // Headers and all of the body.
    expect(received).toBeGreaterThan(SIZE);
  });
});
