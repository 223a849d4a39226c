import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { readJsonText } from '../ingest/index.js';
import { ApiError } from './errors.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route takes the JSON body as the bytes received (`POST /v1/submissions`: ingest reads
     * them); other routes get the value the JSON reader read.
     */
    bodyAsBytes?: boolean;
  }
}

/**
 * What reading one request body may cost, whatever its framing. Node hands the body over one
 * piece per chunk (chunked encoding) or per socket read, and every piece costs a JavaScript
 * call and a Buffer: a 1 MiB body sent in 1-byte chunks was a million of them, 400 MB of memory
 * and a second of blocked event loop per request (issue 12). So besides its size, a body may
 * arrive in at most `FREE_PIECES` pieces plus one per `MIN_AVERAGE_PIECE` bytes; an honest
 * client's chunks or TCP segments are far larger.
 */
const FREE_PIECES = 64;
const MIN_AVERAGE_PIECE = 256;

type Verdict = 'ok' | 'too-large' | 'too-fragmented';

class BodyBudget {
  private bytes = 0;
  private pieces = 0;
  verdict: Verdict = 'ok';

  constructor(private readonly limitBytes: number) {}

  take(length: number): Verdict {
    if (this.verdict !== 'ok') return this.verdict;
    this.bytes += length;
    this.pieces += 1;
    if (this.bytes > this.limitBytes) this.verdict = 'too-large';
    else if (this.pieces > FREE_PIECES + this.bytes / MIN_AVERAGE_PIECE) this.verdict = 'too-fragmented';
    return this.verdict;
  }
}

const budgets = new WeakMap<IncomingMessage, BodyBudget>();

/**
 * Sockets whose current request was answered before its body arrived in full. A framing error
 * or timeout in the rest of that body is not a new request: it closes the connection without a
 * second answer (`clientErrorHandler`).
 */
const answeredEarly = new WeakSet<object>();

export function answeredBeforeBodyEnded(socket: object): boolean {
  return answeredEarly.has(socket);
}

function budgetOf(raw: IncomingMessage, limitBytes: number): BodyBudget {
  let budget = budgets.get(raw);
  if (!budget) {
    budget = new BodyBudget(limitBytes);
    budgets.set(raw, budget);
  }
  return budget;
}

function declaredLength(raw: IncomingMessage): number | undefined {
  const value = raw.headers['content-length'];
  return value === undefined ? undefined : Number(value);
}

function rejection(verdict: Exclude<Verdict, 'ok'>, limitBytes: number): ApiError {
  return verdict === 'too-large'
    ? new ApiError(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than the ${limitBytes}-byte limit.`)
    : new ApiError(
        413,
        'PAYLOAD_TOO_LARGE',
        `The request body arrived in too many small pieces (more than ${FREE_PIECES} plus one per ${MIN_AVERAGE_PIECE} bytes); send it with Content-Length or in larger chunks.`,
      );
}

const UTF8 = /^utf-?8$/i;

/** `application/json` with no charset, or UTF-8 (JSON text exchanged between systems is UTF-8). */
function charsetProblem(request: FastifyRequest): ApiError | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(request.headers['content-type'] ?? '');
  if (!match || UTF8.test(match[1] ?? '')) return undefined;
  return new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Send the body as application/json in UTF-8.');
}

/**
 * Reads JSON bodies within the budget. A route marked `bodyAsBytes` gets the bytes (ingest reads
 * and keeps them); the others get the value the one JSON reader (`readJsonText`) read, invalid
 * UTF-8 replaced with U+FFFD, as decoding always does.
 *
 * A response sent before its request's body was read (a 401 from the key check, a 404, a 413)
 * leaves the rest of the body on the wire. Node would then read and discard it all, a piece at a
 * time, whatever it costs; here it is discarded under the same budget, so an honest client still
 * reads its answer on a connection that stays open, and a hostile one is cut off.
 */
export function installBodyReading(app: FastifyInstance, limitBytes: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', (request, payload, done) => {
    // 404 and 405 answers need no body: it is discarded by the onSend hook below.
    if (request.is404) {
      done(null, undefined);
      return;
    }
    const wrongCharset = charsetProblem(request);
    if (wrongCharset) {
      done(wrongCharset, undefined);
      return;
    }
    const budget = budgetOf(request.raw, limitBytes);
    if ((declaredLength(request.raw) ?? 0) > limitBytes) {
      budget.verdict = 'too-large';
      done(rejection('too-large', limitBytes), undefined);
      return;
    }
    const chunks: Buffer[] = [];
    let length = 0;
    const finish = (error: Error | null, value?: unknown) => {
      payload.removeListener('data', onData);
      payload.removeListener('end', onEnd);
      payload.removeListener('error', onError);
      done(error, value);
    };
    const onData = (chunk: Buffer) => {
      const verdict = budget.take(chunk.length);
      if (verdict !== 'ok') {
        payload.pause();
        finish(rejection(verdict, limitBytes));
        return;
      }
      chunks.push(chunk);
      length += chunk.length;
    };
    const onEnd = () => {
      // Thrown here, in a stream event, an error would end the process: it becomes a 500 instead.
      let read: ReturnType<typeof readJsonText> | Buffer;
      try {
        const bytes = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, length);
        read =
          request.routeOptions.config.bodyAsBytes === true ? bytes : readJsonText(bytes.toString('utf8'));
      } catch (error) {
        finish(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      if (Buffer.isBuffer(read)) finish(null, read);
      else if (read.ok) finish(null, read.value);
      else finish(ApiError.validation(read.errors));
    };
    const onError = (error: Error) => finish(error);
    payload.on('data', onData);
    payload.on('end', onEnd);
    payload.on('error', onError);
  });

  // A callback hook, not an async one: every answer passes here, and a promise per answer (with
  // the async hooks the work context enables) was a measurable part of a request's cost.
  app.addHook('onSend', (request, reply, payload, done) => {
    const raw = request.raw;
    if (raw.complete) {
      done(null, payload);
      return;
    }
    answeredEarly.add(raw.socket);
    raw.once('end', () => answeredEarly.delete(raw.socket));
    const budget = budgetOf(raw, limitBytes);
    if (budget.verdict !== 'ok' || (declaredLength(raw) ?? 0) > limitBytes) {
      // Nothing more will be read: Node closes the connection once the answer is written.
      reply.header('connection', 'close');
      done(null, payload);
      return;
    }
    discardRest(raw, budget);
    done(null, payload);
  });
}

function discardRest(raw: IncomingMessage, budget: BodyBudget): void {
  const onData = (chunk: Buffer) => {
    if (budget.take(chunk.length) === 'ok') return;
    raw.removeListener('data', onData);
    raw.pause();
    raw.socket.destroy();
  };
  raw.on('data', onData);
  raw.resume();
}
