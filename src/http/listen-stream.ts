import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { ListenEvent, ListenPosition, TenantAccess } from '../store/tenant-access.js';
import { type ListenDelivery, listenDelivery } from '../webhooks/listen.js';

/** How the stream paces itself. */
export interface ListenTiming {
  /** How often an idle stream asks the database for new events (one short query each). */
  pollMs: number;
  /** A comment line this often, so proxies and load balancers keep a quiet stream open. */
  heartbeatMs: number;
  /** Events read per query. */
  batch: number;
}

/** What one stream needs: its account's access, its key's listen secret, where to resume. */
export interface ListenSession {
  keyId: string;
  tenant: TenantAccess;
  secret: string;
  position: ListenPosition;
  /** The SSE `id` of the message sent after an event: the position after it, opaque. */
  idAfter(event: ListenEvent): string;
}

/**
 * The open `GET /v1/test/events/stream` streams of a process. A stream holds no database
 * connection between its polls (each is one short query through the pool), writes a heartbeat
 * comment while quiet, stops at the first failed poll or write (the client resumes with
 * `Last-Event-ID`), when its client closes the connection or stops reading (`watchClient`), and
 * when the process shuts down (`endAll`, from the app's `preClose`).
 */
export class ListenStreams {
  /** Each open stream's `end`, with the key that opened it. */
  private readonly open = new Map<() => void, string>();

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly timing: ListenTiming,
    /** `RESPONSE_IDLE_TIMEOUT_MS`: a stream whose client takes no byte for this long is cut off. */
    private readonly idleMs: number,
  ) {}

  /** How many streams the key holds open in this process. */
  openFor(keyId: string): number {
    let n = 0;
    for (const key of this.open.values()) if (key === keyId) n++;
    return n;
  }

  endAll(): void {
    for (const end of [...this.open.keys()]) end();
  }

  /** Streams to `raw` (its headers already written) until the client leaves or the process stops. */
  async run(raw: ServerResponse, session: ListenSession): Promise<void> {
    let ended = false;
    let wake: (() => void) | undefined;
    const end = () => {
      if (ended) return;
      ended = true;
      wake?.();
      raw.end();
    };
    this.open.set(end, session.keyId);
    raw.on('close', end);
    const unwatch = watchClient(raw, end, this.idleMs);
    const heartbeat = setInterval(() => {
      if (!ended) raw.write(': keep-alive\n\n');
    }, this.timing.heartbeatMs);
    try {
      while (!ended) {
        const sent = await this.sendNext(raw, session, () => ended);
        if (ended || sent === this.timing.batch) continue;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.timing.pollMs);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } catch (error) {
      this.logger.warn(
        { err: error },
        'a test events stream stopped; the client resumes from its last event',
      );
    } finally {
      unwatch();
      clearInterval(heartbeat);
      this.open.delete(end);
      end();
    }
  }

  /**
   * Sends the events after the session's position, as far as no later commit can come before
   * them (`TenantListen`); how many there were.
   */
  private async sendNext(raw: ServerResponse, session: ListenSession, ended: () => boolean): Promise<number> {
    const events = await session.tenant.listen.after(session.position, this.timing.batch);
    for (const event of events) {
      if (ended()) break;
      const delivery = listenDelivery({
        secret: session.secret,
        eventId: event.eventId,
        deliveryId: randomUUID(),
        body: event.body,
        now: this.clock(),
      });
      const flushed = raw.write(sseMessage(session.idAfter(event), 'result.ready', delivery));
      if (!flushed && !ended()) {
        await Promise.race([once(raw, 'drain'), once(raw, 'close')]);
      }
      session.position = { at: event.at, eventId: event.eventId };
    }
    return events.length;
  }
}

/**
 * Ends the stream when its client leaves, at once, and cuts it off when its client stopped
 * reading. Returns what undoes both (the connection may serve another request afterwards).
 *
 * - The server runs with `httpAllowHalfOpen` (app.ts), so a client's close arrives as the end of
 *   the socket's input and nothing more: the answer would go on, holding the key's stream slot,
 *   until a heartbeat write failed. A stream's client sends nothing after its request, so the
 *   end of its input is its leaving.
 * - The reply is hijacked before the hook that arms `RESPONSE_IDLE_TIMEOUT_MS` (response-idle.ts),
 *   so it is armed here. A quiet stream is idle too (between heartbeats), so a timeout cuts the
 *   connection only while bytes wait unsent: the client stopped taking them. While the queue
 *   shrinks, Node does not report a timeout (see response-idle.ts).
 */
function watchClient(raw: ServerResponse, end: () => void, idleMs: number): () => void {
  const socket = raw.socket;
  if (socket === null) return () => {};
  const stalled = () => {
    if (socket.writableLength > 0) socket.destroy();
  };
  socket.on('end', end);
  raw.setTimeout(idleMs, stalled);
  if (socket.readableEnded) end();
  return () => {
    socket.off('end', end);
    raw.off('timeout', stalled);
  };
}

/** One Server-Sent Events message; the JSON data is one line (JSON escapes line breaks). */
export function sseMessage(id: string | undefined, event: string, data: ListenDelivery | object): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}
