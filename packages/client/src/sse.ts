/** One Server-Sent Events message (the HTML standard's event stream format). */
export interface SseMessage {
  /** The `id` field, when the message has one (what `Last-Event-ID` resumes after). */
  id: string | undefined;
  /** The `event` field; `message` when absent. */
  event: string;
  data: string;
}

/**
 * The messages of an event stream as they arrive. Lines end in LF, CR or CRLF; comment lines
 * (`:` first, the service's heartbeats) and fields other than id, event and data are skipped; a
 * message without data is not dispatched, as the standard says.
 */
export async function* sseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  let buffer = '';
  let message = fresh();
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    for (;;) {
      const end = buffer.search(/\r\n|\r|\n/);
      // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
      if (end < 0 || (end === buffer.length - 1 && buffer[end] === '\r')) break;
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (message.data !== undefined) yield { id: message.id, event: message.event, data: message.data };
        message = fresh(message.id);
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
      if (field === 'id' && !value.includes('\0')) message.id = value;
      else if (field === 'event') message.event = value;
      else if (field === 'data')
        message.data = message.data === undefined ? value : `${message.data}\n${value}`;
    }
  }
}

function fresh(lastId?: string): { id: string | undefined; event: string; data: string | undefined } {
  // The last event id carries over to later messages until one sets another.
  return { id: lastId, event: 'message', data: undefined };
}
