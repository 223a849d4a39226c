import type { FastifyInstance } from 'fastify';
import { hashSecret, newSecret } from '../../auth/secret-token.js';
import { ApiError } from '../errors.js';
import { type ConsoleOptions, html } from './context.js';
import { messagePage } from './pages/layout.js';
import { consoleState, requireSession } from './signed-in.js';

const USED_LINK = [
  'This sign-in link has already been used, has expired (links work once, within 5 minutes), or is not valid.',
  'Ask your team for a new link.',
];

/** `GET /console/sign-in?token=…`: a link's one use opens a session (its cookie set). */
export async function consoleSignInRoute(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  app.get('/sign-in', async (request, reply) => {
    const token = (request.query as Record<string, unknown>).token;
    const cookie = newSecret();
    const now = opts.clock();
    // The session this browser already had ends with this sign-in (a new id, the old cookie dead).
    const presented = opts.cookie.read(request);
    const session =
      typeof token === 'string' && token.length <= 128
        ? await opts.sessions.redeem(
            hashSecret(token),
            cookie.hash,
            now,
            request.id,
            presented === undefined || presented === '' ? undefined : hashSecret(presented),
          )
        : undefined;
    if (!session) return html(reply.code(403), messagePage('This link cannot be used', USED_LINK));
    const maxAge = Math.max(0, Math.floor((Date.parse(session.expiresAt) - now.getTime()) / 1000));
    opts.cookie.set(reply, cookie.value, maxAge);
    // A URL without the token: the link's page is left at once, and no-referrer keeps it unsent.
    return reply.code(303).header('location', '/console/').send();
  });
}

/** `POST /console/sign-out`: a scope of its own, since signing out is never refused for the rate limit. */
export async function consoleSignOutRoute(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  requireSession(app, opts, { counted: false });
  app.post('/sign-out', async (request, reply) => {
    const state = consoleState(request);
    await opts.sessions.signOut(state.session, opts.clock(), request.id);
    opts.cookie.clear(reply);
    return html(
      reply,
      messagePage('Signed out', ['You have signed out. Close this tab, or ask for a new link to come back.']),
    );
  });
}

/** `POST /console/mode`: the live/test switch of a session opened with a live key (signed-in scope). */
export async function consoleModeRoute(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  app.post('/mode', async (request, reply) => {
    const state = consoleState(request);
    const mode = (request.body as Record<string, unknown>).mode;
    if ((mode !== 'live' && mode !== 'test') || state.session.keyMode !== 'live') {
      throw new ApiError(400, 'BAD_REQUEST', 'This session cannot switch to that mode.');
    }
    await opts.sessions.setMode(state.session.sessionId, mode);
    return reply.code(303).header('location', '/console/').send();
  });
}
