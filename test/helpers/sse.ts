import http from 'node:http';

export interface SseMessage {
  id: string | undefined;
  event: string;
  data: string;
}

/**
 * A Server-Sent Events stream read over a real connection: its status and headers, every
 * message and comment as they arrive, and `close()`. Deliberately separate from the client
 * package's parser, so the route is checked against the SSE format and not against our client.
 */
export class SseStream {
  readonly messages: SseMessage[] = [];
  readonly comments: string[] = [];
  status = 0;
  headers: http.IncomingHttpHeaders = {};
  /** The error envelope's text when the answer was not a stream. */
  errorBody = '';
  ended = false;
  private req: http.ClientRequest | undefined;

  static open(url: string, headers: Record<string, string>): Promise<SseStream> {
    const stream = new SseStream();
    return new Promise((resolve, reject) => {
      const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        stream.status = res.statusCode ?? 0;
        stream.headers = res.headers;
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (stream.status !== 200) {
            stream.errorBody += chunk;
            return;
          }
          buffer += chunk;
          let cut = buffer.indexOf('\n\n');
          while (cut >= 0) {
            stream.take(buffer.slice(0, cut));
            buffer = buffer.slice(cut + 2);
            cut = buffer.indexOf('\n\n');
          }
        });
        res.on('end', () => {
          stream.ended = true;
        });
        res.on('error', () => {
          stream.ended = true;
        });
        resolve(stream);
      });
      req.on('error', reject);
      stream.req = req;
    });
  }

  private take(block: string): void {
    const message: SseMessage = { id: undefined, event: 'message', data: '' };
    let hasData = false;
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) {
        this.comments.push(line.slice(1).trim());
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') message.id = value;
      else if (field === 'event') message.event = value;
      else if (field === 'data') {
        message.data = hasData ? `${message.data}\n${value}` : value;
        hasData = true;
      }
    }
    if (hasData) this.messages.push(message);
  }

  /** The parsed data of every message of this event type. */
  data<T>(event: string): T[] {
    return this.messages.filter((m) => m.event === event).map((m) => JSON.parse(m.data) as T);
  }

  /** The client's port of the connection (the server's sockets are told apart by it). */
  get localPort(): number | undefined {
    return this.req?.socket?.localPort;
  }

  close(): void {
    this.req?.destroy();
  }
}
