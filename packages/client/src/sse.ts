import { createParser } from 'eventsource-parser';

/** One Server-Sent Events message (the HTML standard's event stream format). */
export interface SseMessage {
  /** The `id` field, when the message has one (what `Last-Event-ID` resumes after). */
  id: string | undefined;
  /** The `event` field; `message` when absent. */
  event: string;
  data: string;
}

/**
 * The messages of an event stream as they arrive, parsed by eventsource-parser (line endings,
 * chunk boundaries, comments such as the service's heartbeats, multi-line data, as the standard
 * says).
 */
export async function* sseMessages(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder();
  const ready: SseMessage[] = [];
  const parser = createParser({
    onEvent: (message) =>
      ready.push({ id: message.id, event: message.event ?? 'message', data: message.data }),
  });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* ready.splice(0);
  }
}
