import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import sjson from 'secure-json-parse';
import { Authenticator } from '../auth/authenticator.js';
import type { Config } from '../config.js';
import type { Store } from '../store/index.js';
import { installAuth } from './auth.js';
import type { DownloadLinks } from './download-links.js';
import { ApiError, correlationIdOf, installErrorHandling } from './errors.js';
import { installRateLimit } from './rate-limit.js';
import { artifactRoutes } from './routes/artifacts.js';
import { probeRoutes } from './routes/probe.js';
import { resultRoutes } from './routes/results.js';
import { submissionRoutes } from './routes/submissions.js';
import { type ReadinessCheck, supportRoutes } from './routes/support.js';

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string;
  }
  interface FastifyInstance {
    /** Every method and path registered, for checks that the API description covers them. */
    routeTable: Array<{ method: string; url: string }>;
  }
}

export interface AppDeps {
  config: Pick<Config, 'rateLimitPerMinute' | 'bodyLimitBytes' | 'trustProxy' | 'redisUrl'>;
  store: Store;
  links: DownloadLinks;
  logger: Logger;
  authenticator?: Authenticator;
  /** `worker`: only /health, /ready and the API description, for probes of a worker process. */
  role?: ServiceRole;
  readinessChecks?: ReadinessCheck[];
}

export type ServiceRole = 'all' | 'api' | 'worker';

const REQUEST_ID = /^[A-Za-z0-9._:@-]{1,200}$/;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Our own one-line access log below never includes bodies or credentials.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: deps.config.bodyLimitBytes,
    trustProxy: deps.config.trustProxy,
    requestIdHeader: false,
    genReqId: (req) => {
      const raw = req.headers['x-request-id'];
      const value = Array.isArray(raw) ? raw[0] : raw;
      return value !== undefined && REQUEST_ID.test(value) ? value : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true },
  });

  installErrorHandling(app);
  const routeTable: Array<{ method: string; url: string }> = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      routeTable.push({ method, url: route.url });
    }
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime * 10) / 10,
        tenantId: request.principal?.tenantId,
        correlationId: correlationIdOf(request),
      },
      'request',
    );
  });

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    request.rawBody = text;
    if (text.trim() === '') {
      done(
        ApiError.validation({
          formErrors: ['The request body is empty; send a JSON object.'],
          fieldErrors: {},
        }),
      );
      return;
    }
    try {
      done(null, sjson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' }));
    } catch {
      done(ApiError.validation({ formErrors: ['The request body is not valid JSON.'], fieldErrors: {} }));
    }
  });

  await app.register(cors, {
    origin: true,
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: [
      'Content-Type',
      'Authorization',
      'X-Api-Key',
      'Idempotency-Key',
      'X-Correlation-Id',
      'X-Request-Id',
    ],
    exposedHeaders: [
      'X-Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
      'Location',
      'Idempotent-Replayed',
    ],
    strictPreflight: false,
    maxAge: 600,
  });

  if (deps.role === 'worker') {
    await app.register(supportRoutes, { store: deps.store, checks: deps.readinessChecks ?? [] });
    return app;
  }
  await installRateLimit(app, deps.config, deps.logger);
  installAuth(app, deps.authenticator ?? new Authenticator(deps.store.accounts));

  await app.register(supportRoutes, { store: deps.store, checks: deps.readinessChecks ?? [] });
  await app.register(probeRoutes);
  await app.register(submissionRoutes, { store: deps.store });
  await app.register(resultRoutes, { store: deps.store, links: deps.links });
  await app.register(artifactRoutes, { store: deps.store, links: deps.links });
  return app;
}
