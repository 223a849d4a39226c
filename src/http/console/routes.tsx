import type { FastifyError, FastifyInstance } from 'fastify';
import type { ApiMode } from '../../domain/mode.js';
import { ApiError } from '../errors.js';
import { consoleActionRoutes } from './actions.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { consoleAuditRoutes } from './audit-routes.js';
import { consoleCallbackRoutes } from './callback-routes.js';
import { type ConsoleOptions, checkCsrf, html, signedIn } from './context.js';
import { consoleErasureRoutes } from './erasure-routes.js';
import { consoleHeaders } from './headers.js';
import { consoleKeyRoutes } from './key-routes.js';
import { consolePageRoutes } from './page-routes.js';
import { messagePage } from './pages/layout.js';
import { hashSecret, newSecret } from './tokens.js';

/** A form post is a few fields: anything larger is refused unread. */
const FORM_LIMIT_BYTES = 16 * 1024;

const USED_LINK = [
  'This sign-in link has already been used, has expired (links work once, within 5 minutes), or is not valid.',
  'Ask your team for a new link.',
];

/**
 * The partner console under /console/ (issue 31): server-rendered pages, plain forms and links.
 * Registered with the `/console` prefix, so its headers, form reading and HTML error pages stay
 * inside it.
 */
export async function consoleRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  const headers = consoleHeaders(opts.frameAncestors);
  app.addHook('onRequest', async (_request, reply) => {
    reply.headers(headers);
  });
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );
  installErrorPages(app);
  // The options this plugin got carry its prefix: the pages' plugin adds none of its own.
  await app.register(consolePageRoutes, { ...opts, prefix: '' });
  await app.register(consoleActionRoutes, { ...opts, prefix: '' });
  await app.register(consoleKeyRoutes, { ...opts, prefix: '' });
  await app.register(consoleAuditRoutes, { ...opts, prefix: '' });
  await app.register(consoleErasureRoutes, { ...opts, prefix: '' });
  await app.register(consoleCallbackRoutes, { ...opts, prefix: '' });

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

  app.post('/sign-out', async (request, reply) => {
    const state = await signedIn(request, reply, opts, { counted: false });
    if (!state) return reply;
    checkCsrf(request, state, opts);
    await opts.sessions.signOut(state.session, opts.clock(), request.id);
    opts.cookie.clear(reply);
    return html(
      reply,
      messagePage('Signed out', ['You have signed out. Close this tab, or ask for a new link to come back.']),
    );
  });

  app.post('/mode', async (request, reply) => {
    const state = await signedIn(request, reply, opts);
    if (!state) return reply;
    checkCsrf(request, state, opts);
    const mode = (request.body as Record<string, unknown>).mode;
    if ((mode !== 'live' && mode !== 'test') || state.session.keyMode !== 'live') {
      throw new ApiError(400, 'BAD_REQUEST', 'This session cannot switch to that mode.');
    }
    await opts.sessions.setMode(state.session.sessionId, mode as ApiMode);
    return reply.code(303).header('location', '/console/').send();
  });

  app.get('/assets/console.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').send(CONSOLE_CSS),
  );
  app.get('/assets/console.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(CONSOLE_JS),
  );
}

/** Errors inside the console answer with a page in plain words, never the API's JSON. */
function installErrorPages(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error instanceof ApiError ? error.statusCode : (error.statusCode ?? 500);
    if (status >= 500) request.log.error({ err: error }, 'console request failed');
    const message =
      error instanceof ApiError && status < 500
        ? error.message
        : status < 500
          ? 'The request could not be read.'
          : 'Something went wrong on our side. Try again in a moment.';
    const title =
      status === 404
        ? 'Not found'
        : status === 403
          ? 'Not allowed'
          : status === 429
            ? 'Too many requests'
            : 'Something went wrong';
    return html(reply.code(status), messagePage(title, [message, 'Go back to the overview: /console/']));
  });
  app.setNotFoundHandler((_request, reply) =>
    html(reply.code(404), messagePage('Not found', ['There is no page at this address.'])),
  );
}
