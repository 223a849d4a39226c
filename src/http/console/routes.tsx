import fastifyCookie from '@fastify/cookie';
import type { FastifyError, FastifyInstance } from 'fastify';
import { ApiError } from '../errors.js';
import { consoleActionRoutes } from './actions.js';
import { CONSOLE_CSS, CONSOLE_JS } from './assets.js';
import { consoleAuditRoutes } from './audit-routes.js';
import { consoleCallbackRoutes } from './callback-routes.js';
import { type ConsoleOptions, html } from './context.js';
import { consoleErasureRoutes } from './erasure-routes.js';
import { consoleHeaders } from './headers.js';
import { consoleKeyRoutes } from './key-routes.js';
import { consolePageRoutes } from './page-routes.js';
import { messagePage } from './pages/layout.js';
import { consoleModeRoute, consoleSignInRoute, consoleSignOutRoute } from './session-routes.js';
import { requireSession } from './signed-in.js';

/** A form post is a few fields: anything larger is refused unread. */
const FORM_LIMIT_BYTES = 16 * 1024;

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
  // The session cookie is read and written through @fastify/cookie, in this scope only.
  await app.register(fastifyCookie);
  installErrorPages(app);
  // The options this plugin got carry its prefix: the plugins it registers add none of their own.
  const routeOpts = { ...opts, prefix: '' };
  await app.register(signedInRoutes, routeOpts);
  await app.register(consoleSignOutRoute, routeOpts);
  await app.register(consoleSignInRoute, routeOpts);
  app.get('/assets/console.css', async (_request, reply) =>
    reply.type('text/css; charset=utf-8').send(CONSOLE_CSS),
  );
  app.get('/assets/console.js', async (_request, reply) =>
    reply.type('text/javascript; charset=utf-8').send(CONSOLE_JS),
  );
}

/**
 * Every page and action behind a session, in one scope whose hook (`requireSession`) is the one
 * session check: the handlers get a signed-in request or never run.
 */
async function signedInRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  requireSession(app, opts);
  await app.register(consolePageRoutes, opts);
  await app.register(consoleActionRoutes, opts);
  await app.register(consoleKeyRoutes, opts);
  await app.register(consoleAuditRoutes, opts);
  await app.register(consoleErasureRoutes, opts);
  await app.register(consoleCallbackRoutes, opts);
  await app.register(consoleModeRoute, opts);
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
