import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { answeredBeforeBodyEnded } from './body.js';
import type { ErrorCode } from './errors.js';

/**
 * Answers for requests that never reach Fastify: Node's HTTP parser refused them (obs-fold
 * header lines, a bare CR, two Content-Length values, an unknown Transfer-Encoding, a lowercase
 * method, headers over the size limit), the client was too slow, or the method is CONNECT. Each
 * still gets the documented error envelope with a request id, then the connection is closed,
 * because after a framing error nothing more on it can be trusted.
 */
function rawErrorResponse(status: number, code: ErrorCode, message: string): string {
  const requestId = randomUUID();
  const body = JSON.stringify({ error: { code, message, requestId } });
  return [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

function describe(error: NodeJS.ErrnoException): { status: number; code: ErrorCode; message: string } {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        code: 'REQUEST_TIMEOUT',
        message: 'The request was not received in time; send the whole request promptly.',
      };
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        code: 'HEADERS_TOO_LARGE',
        message: 'The request headers are larger than the server accepts.',
      };
    case 'HPE_INVALID_METHOD':
      return { status: 400, code: 'BAD_REQUEST', message: 'The request method is not a valid HTTP method.' };
    default:
      return { status: 400, code: 'BAD_REQUEST', message: 'The request is not valid HTTP/1.1.' };
  }
}

/** The in-flight response on a keep-alive socket, if any (Node keeps it on the socket). */
function inFlight(socket: Duplex): ServerResponse | undefined {
  return (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

/** Fastify's `clientErrorHandler`: Node's `clientError` event, answered with the envelope. */
export function clientErrorHandler(logger: FastifyBaseLogger) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (answeredBeforeBodyEnded(socket)) {
      socket.destroy();
      return;
    }
    const { status, code, message } = describe(error);
    logger.info({ errorCode: error.code, status }, 'client error before routing');
    // As Node does: never write into a response that has already started on this socket.
    const response = inFlight(socket);
    if (socket.writable && !response?.headersSent) {
      socket.end(rawErrorResponse(status, code, message));
      // Half-closed, the peer reads the answer; the socket goes once it has flushed or stalled.
      socket.setTimeout(5_000, () => socket.destroy());
      return;
    }
    socket.destroy();
  };
}

/**
 * Requests Node answers itself when nobody listens: CONNECT (Node drops the connection) and an
 * `Expect` other than `100-continue` (Node sends a bare 417). Both get the envelope instead.
 */
export function answerOutsideFastify(server: Server): void {
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.end(rawErrorResponse(405, 'METHOD_NOT_ALLOWED', 'CONNECT is not supported by this service.'));
  });
  server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
    const requestId = randomUUID();
    const body = JSON.stringify({
      error: {
        code: 'EXPECTATION_FAILED',
        message: 'Only the expectation 100-continue is supported.',
        requestId,
      },
    });
    request.resume();
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      'x-request-id': requestId,
      connection: 'close',
    });
    response.end(body);
  });
}
