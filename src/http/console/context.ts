import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.js';
import type { WebhookEndpointService } from '../../operations/callback-endpoint.js';
import type { EventSender } from '../../operations/event-resend.js';
import type { ConsoleGateway, TenantAccess, TenantGateway } from '../../store/tenant-access.js';
import type { PageCursors } from '../cursor.js';
import type { DownloadLinks } from '../download-links.js';
import { ApiError } from '../errors.js';
import { type CountRequest, keyCounter } from '../rate-limit.js';
import type { Frame } from './pages/layout.js';
import { messagePage } from './pages/layout.js';
import { type ConsoleState, loadSession, type SessionCookie } from './session.js';
import type { CsrfTokens } from './tokens.js';

/** What the console's routes are built from. */
export interface ConsoleOptions {
  sessions: ConsoleGateway;
  tenants: TenantGateway;
  links: DownloadLinks;
  cursors: PageCursors;
  clock: Clock;
  csrf: CsrfTokens;
  cookie: SessionCookie;
  frameAncestors: readonly string[];
  /** The callback endpoint service of `/v1/webhook-endpoint`: the Callbacks page's reads and changes. */
  endpoints: WebhookEndpointService;
  /** Redelivery and recovery of events, as `POST /v1/events/{id}/redeliver` and `/v1/events/recover`. */
  events: EventSender;
  /** Called after the console revokes a key: this process's key cache drops it at once. */
  keysChanged: () => void;
  /** Counts an action in the API's rate-limit counters; undefined when limits are off. */
  countAction?: CountRequest | undefined;
}

const SIGNED_OUT = [
  'You are not signed in, or your session has ended (after 30 minutes without use, at its time limit, or because the key that made it was revoked).',
  'Ask your team for a new sign-in link.',
];

/**
 * The request's console state, or `undefined` after answering `401` with a page saying how to
 * sign in again (the cookie cleared). A `POST` (an action) is counted against the rate limit
 * first, unless `counted` is false (signing out is never refused).
 */
export async function signedIn(
  request: FastifyRequest,
  reply: FastifyReply,
  opts: ConsoleOptions,
  { counted = true }: { counted?: boolean } = {},
): Promise<ConsoleState | undefined> {
  const found = await loadSession(request, { ...opts, clock: opts.clock });
  if (found.ok) {
    if (counted && request.method === 'POST') await limitAction(request, reply, found.state, opts);
    return found.state;
  }
  opts.cookie.clear(reply);
  await html(reply.code(401), messagePage('Signed out', SIGNED_OUT));
  return undefined;
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
export function checkCsrf(request: FastifyRequest, state: ConsoleState, opts: ConsoleOptions): void {
  const body = request.body as Record<string, unknown> | undefined;
  if (!opts.csrf.check(state.session.sessionId, body?._csrf)) {
    throw new ApiError(403, 'FORBIDDEN', 'This form has expired. Reload the page and try again.');
  }
}

/** Refuses a change to a `read` session whatever the request says (`403`). */
export function requireManage(state: ConsoleState): void {
  if (state.session.scope !== 'manage') {
    throw new ApiError(403, 'FORBIDDEN', 'This session may only look: ask for a link with the manage scope.');
  }
}

/** The account of the mode shown, or a `404` page when test mode has no data yet. */
export function tenantOfState(state: ConsoleState): TenantAccess {
  if (!state.tenant) throw ApiError.notFound('This account has no test mode yet: nothing to show.');
  return state.tenant;
}

export function frameOf(state: ConsoleState, current: Frame['current']): Frame {
  return {
    csrf: state.csrf,
    mode: state.session.keyMode === 'test' ? 'test' : state.session.mode,
    canSwitch: state.session.keyMode === 'live',
    scope: state.session.scope,
    current,
  };
}

export function html(reply: FastifyReply, body: string): FastifyReply {
  return reply.type('text/html; charset=utf-8').send(body);
}
