import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';
import { keyCounter } from '../rate-limit.js';
import { type ConsoleOptions, html } from './context.js';
import { messagePage } from './pages/layout.js';
import { type ConsoleState, loadSession } from './session.js';

const SIGNED_OUT = [
  'You are not signed in, or your session has ended (after 30 minutes without use, at its time limit, or because the key that made it was revoked).',
  'Ask your team for a new sign-in link.',
];

/** The state the scope's hook loaded, by request: set once, before the handler runs. */
const states = new WeakMap<FastifyRequest, ConsoleState>();

/**
 * Makes every route registered in `scope` (an encapsulated plugin, and the plugins it registers)
 * a signed-in one. Before its handler runs, the request's session is loaded; without one the
 * answer is `401` with a page saying how to sign in again (the cookie cleared). A `POST` (an
 * action) is then counted against the rate limit, unless `counted` is false (signing out is never
 * refused), and must carry the session's CSRF token. Handlers read the state with `consoleState`.
 */
export function requireSession(
  scope: FastifyInstance,
  opts: ConsoleOptions,
  { counted = true }: { counted?: boolean } = {},
): void {
  scope.addHook('preHandler', async (request, reply) => {
    const found = await loadSession(request, opts);
    if (!found.ok) {
      opts.cookie.clear(reply);
      return html(reply.code(401), messagePage('Signed out', SIGNED_OUT));
    }
    if (request.method === 'POST') {
      if (counted) await limitAction(request, reply, found.state, opts);
      checkCsrf(request, found.state, opts);
    }
    states.set(request, found.state);
  });
}

/** The console state of a request that `requireSession`'s hook let through. */
export function consoleState(request: FastifyRequest): ConsoleState {
  const state = states.get(request);
  // A route outside a signed-in scope is a mistake in this code, not a request to answer.
  if (!state) throw new Error(`${request.routeOptions.url ?? request.url} is not in a signed-in scope`);
  return state;
}

/**
 * Refuses an action past the limit (`429`, `Retry-After`). A session opened with a key counts
 * in that key's own counter, so its actions and the key's API requests share one budget; an
 * operator's link has no key and counts in its session's own counter, with the same limit.
 */
async function limitAction(
  request: FastifyRequest,
  reply: FastifyReply,
  state: ConsoleState,
  opts: ConsoleOptions,
): Promise<void> {
  if (!opts.countAction) return;
  const { session } = state;
  const counter =
    session.keyHash !== null ? keyCounter(session.keyMode, session.keyHash) : `s:${session.sessionId}`;
  const verdict = await opts.countAction(request, counter);
  if (!verdict.limited) return;
  reply.header('retry-after', String(verdict.retryAfterSeconds));
  throw new ApiError(
    429,
    'RATE_LIMITED',
    `Too many requests for this account in a short time. Wait ${verdict.retryAfterSeconds} seconds and try again.`,
  );
}

/** Refuses a state-changing request without the session's CSRF token (`403`). */
function checkCsrf(request: FastifyRequest, state: ConsoleState, opts: ConsoleOptions): void {
  const body = request.body as Record<string, unknown> | undefined;
  if (!opts.csrf.check(state.session.sessionId, body?._csrf)) {
    throw new ApiError(403, 'FORBIDDEN', 'This form has expired. Reload the page and try again.');
  }
}
