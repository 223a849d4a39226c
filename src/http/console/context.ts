import type { FastifyReply } from 'fastify';
import type { Clock } from '../../clock.js';
import type { WebhookEndpointService } from '../../operations/callback-endpoint.js';
import type { EventSender } from '../../operations/event-resend.js';
import type { ConsoleGateway, TenantAccess, TenantGateway } from '../../store/tenant-access.js';
import type { PageCursors } from '../cursor.js';
import type { DownloadLinks } from '../download-links.js';
import { ApiError } from '../errors.js';
import type { CountRequest } from '../rate-limit.js';
import type { Frame } from './pages/layout.js';
import type { ConsoleState, SessionCookie } from './session.js';
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
