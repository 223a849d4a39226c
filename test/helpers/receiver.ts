import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  headers: http.IncomingHttpHeaders;
  rawBody: Buffer;
  receivedAt: number;
}

/**
 * What the receiver does with a delivery: answer a status, never answer (a hung endpoint), or
 * drop the connection without an answer.
 */
export type Reply = number | 'hang' | 'reset';

/**
 * A real HTTP receiver on loopback that records every delivery byte for byte and answers
 * each one from a script (`replies`, then `fallback`).
 */
export class TestReceiver {
  readonly deliveries: ReceivedDelivery[] = [];
  replies: Reply[] = [];
  fallback: Reply = 204;
  /** The body every answer carries (none when undefined). */
  answer: string | Buffer | undefined;
  /** Decides by the delivery's bytes before the script is read; undefined leaves it to the script. */
  replyTo: ((rawBody: Buffer) => Reply | undefined) | undefined;
  private server: http.Server | undefined;
  private readonly hung = new Set<http.ServerResponse>();

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.deliveries.push({
          headers: req.headers,
          rawBody: Buffer.concat(chunks),
          receivedAt: Date.now(),
        });
        const reply = this.replyTo?.(Buffer.concat(chunks)) ?? this.replies.shift() ?? this.fallback;
        if (reply === 'hang') this.hung.add(res);
        else if (reply === 'reset') req.socket.destroy();
        else res.writeHead(reply).end(this.answer);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks/healthspan`;
  }

  get port(): number {
    return (this.server!.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
