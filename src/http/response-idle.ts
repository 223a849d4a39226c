import type { FastifyInstance } from 'fastify';

/**
 * Cuts off a client that stops reading its answer (a large download left half-read): without
 * this its socket, and the unsent part of the answer, were held for ever.
 *
 * Armed when the answer starts, not when the request arrives: a slow handler (the client waiting
 * for it) is not the client's fault. The socket's inactivity timer covers a blocked write: while
 * bytes wait in the write queue, Node suppresses the timeout only if the queue shrank since the
 * last check, so a slow reader that keeps taking bytes is never cut off, a stopped one is. Nobody
 * listens for the socket's `timeout`, so Node's HTTP server destroys the socket. Once the answer
 * is written, the server replaces the timer with the keep-alive timeout.
 */
export function installResponseIdleTimeout(app: FastifyInstance, idleMs: number): void {
  // A callback hook: every answer passes here (see the onSend hook of body.ts).
  app.addHook('onSend', (_request, reply, payload, done) => {
    reply.raw.setTimeout(idleMs);
    done(null, payload);
  });
}
