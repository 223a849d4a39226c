import { randomUUID } from 'node:crypto';
import cors from '@fastify/cors';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from 'pino';
import type { Authenticator } from '../auth/authenticator.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { runInContext, workContext } from '../context.js';
import { LISTEN_TIMING } from '../fixed-defaults.js';
import type { WebhookEndpointService } from '../operations/callback-endpoint.js';
import type { EventSender } from '../operations/event-resend.js';
import type { ReadinessCheck } from '../readiness.js';
import type { ServiceRole } from '../service-role.js';
import type { ArtifactGateway, ConsoleGateway, TenantGateway } from '../store/tenant-access.js';
import { type TraceSpan, tracing } from '../telemetry/tracing.js';
import { installAuth } from './auth.js';
import { AuthFailureLimit, LocalFailureStore, RedisFailureStore } from './auth-failures.js';
import { installBodyReading } from './body.js';
import { answerOutsideFastify, clientErrorHandler } from './client-errors.js';
import { consoleLinkRoutes } from './console/link-route.js';
import { consoleRoutes } from './console/routes.js';
import { SessionCookie } from './console/session.js';
import { CsrfTokens } from './console/tokens.js';
import type { PageCursors } from './cursor.js';
import type { DownloadLinks } from './download-links.js';
import { ApiError, correlationIdOf, installErrorHandling, sendFrameworkError } from './errors.js';
import { ListenStreams, type ListenTiming } from './listen-stream.js';
import { openApiDocument, openApiYaml } from './openapi.js';
import { type CountRequest, connectRedis, installRateLimit } from './rate-limit.js';
import { requestTelemetry } from './request-telemetry.js';
import { installResponseIdleTimeout } from './response-idle.js';
import { artifactRoutes } from './routes/artifacts.js';
import { auditRoutes } from './routes/audit-events.js';
import { erasureRoutes } from './routes/erasures.js';
import { eventResendRoutes } from './routes/event-resend.js';
import { eventReadRoutes } from './routes/events.js';
import { fhirRoutes } from './routes/fhir.js';
import { listenRoutes } from './routes/listen.js';
import { probeRoutes } from './routes/probe.js';
import { resultRoutes } from './routes/results.js';
import { submissionListRoutes } from './routes/submission-list.js';
import { submissionRoutes } from './routes/submissions.js';
import { supportRoutes } from './routes/support.js';
import { type TestEventSender, testEventRoutes } from './routes/test-events.js';
import { webhookEndpointRoutes } from './routes/webhook-endpoint.js';
import { installTransportSecurity } from './transport-security.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** What a submission request created or replayed, for its log line. */
    submissionLog: { submissionId: string; replayed: boolean } | null;
    /** The request's span, when tracing is on. */
    traceSpan: TraceSpan | null;
  }
  interface FastifyInstance {
    /** Every method and path registered, for checks that the API description covers them. */
    routeTable: Array<{ method: string; url: string }>;
  }
}

export interface AppDeps {
  config: Pick<
    Config,
    | 'rateLimitPerMinute'
    | 'bodyLimitBytes'
    | 'trustProxy'
    | 'redisUrl'
    | 'headersTimeoutMs'
    | 'requestTimeoutMs'
    | 'keepAliveTimeoutMs'
    | 'responseIdleTimeoutMs'
    | 'authFailuresPerMinute'
    | 'corsAllowedOrigins'
    | 'consoleEnabled'
    | 'consoleFrameAncestors'
    | 'publicBaseUrl'
    | 'hstsMaxAgeSeconds'
    | 'artifactDownload'
  >;
  /** The console's links and sessions (looked up by hash; each names its one account). */
  consoleSessions: ConsoleGateway;
  /** The service's signing secret: the console's CSRF key is derived from it. */
  signingSecret: Buffer;
  /** Hands authenticated requests (and signed downloads) their account's data access. */
  /** Only ever the two ways in: a verified key's account, or a signed link's artifact's. */
  tenants: TenantGateway & ArtifactGateway;
  /** The database answers and is migrated. */
  isReady: () => Promise<{ ok: boolean; reason?: string }>;
  authenticator: Authenticator;
  links: DownloadLinks;
  /** Signed page cursors of the list routes. */
  cursors: PageCursors;
  /** `POST /v1/test/events` (test keys): sends within the account it is handed. */
  testEvents: TestEventSender;
  /** `/v1/webhook-endpoint`: the key's own callback endpoint, through its account's access. */
  webhookEndpoints: WebhookEndpointService;
  /** Redelivery and recovery of the account's events (`webhooks/events.ts`). */
  events: EventSender;
  /** The listen secret of an API key, by its id (`healthspan listen`; webhooks/listen.ts). */
  listenSecret: (keyId: string) => string;
  /** The test events stream's pacing; `LISTEN_TIMING` unless given. */
  listenTiming?: Partial<ListenTiming>;
  /** The rate limit's window: a minute unless given (tests shorten it). */
  rateLimitWindowMs?: number;
  logger: Logger;
  clock: Clock;
  /** `worker`: only /health, /ready and the API description, for probes of a worker process. */
  role?: ServiceRole;
  readinessChecks?: ReadinessCheck[];
}

const REQUEST_ID = /^[A-Za-z0-9._:@-]{1,200}$/;

/** How often Node checks the header and request timeouts (its default, 30 s, let slow clients linger). */
const TIMEOUT_CHECK_MS = 1000;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = createFastify(config, deps.logger as FastifyBaseLogger);
  installTransportSecurity(app.server, config);
  installErrorHandling(app);
  installRouteTable(app);
  installWorkContext(app, deps.clock);
  installAccessLog(app);
  installBodyReading(app, config.bodyLimitBytes);
  installResponseIdleTimeout(app, config.responseIdleTimeoutMs);
  if (config.corsAllowedOrigins.length > 0) await installCors(app, config.corsAllowedOrigins);

  const support = {
    isReady: deps.isReady,
    checks: deps.readinessChecks ?? [],
    clock: deps.clock,
    openApi: { json: openApiDocument, yaml: openApiYaml },
  };
  if (deps.role === 'worker') {
    await app.register(supportRoutes, support);
    return app;
  }
  const shared = config.rateLimitPerMinute > 0 || config.authFailuresPerMinute > 0;
  const redis = config.redisUrl && shared ? await connectRedis(app, config.redisUrl, deps.logger) : undefined;
  const countAction = await installRateLimit(app, config, redis, deps.rateLimitWindowMs);
  const failures =
    config.authFailuresPerMinute > 0
      ? new AuthFailureLimit(
          config.authFailuresPerMinute,
          redis ? new RedisFailureStore(redis) : new LocalFailureStore(),
          () => deps.clock().getTime(),
        )
      : undefined;
  installAuth(app, deps.authenticator, deps.tenants, failures);
  await app.register(supportRoutes, support);
  await registerPartnerRoutes(app, deps, countAction);
  return app;
}

/** The Fastify instance with the server settings: timeouts, limits, request ids, client errors. */
function createFastify(config: AppDeps['config'], logger: FastifyBaseLogger): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    // Our own one-line access log (`installAccessLog`) never includes bodies or credentials.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: config.trustProxy,
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    http: {
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(TIMEOUT_CHECK_MS, config.headersTimeoutMs),
      // Node answers a missing Host with an empty 400; the onRequest hook answers with the envelope.
      requireHostHeader: false,
      // Node stops reading a socket once this much body waits unread: with tiny chunks every byte
      // is a Buffer, so a small mark halves what a refused request costs before it is cut off.
      highWaterMark: 1024,
    },
    clientErrorHandler: clientErrorHandler(logger),
    frameworkErrors: sendFrameworkError,
    requestIdHeader: false,
    genReqId: (req) => {
      const raw = req.headers['x-request-id'];
      const value = Array.isArray(raw) ? raw[0] : raw;
      return value !== undefined && REQUEST_ID.test(value) ? value : randomUUID();
    },
    // A partner's subject reference (up to 512 characters) is a path parameter, URL-encoded.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 8192 },
  });
  answerOutsideFastify(app.server);
  // A client may half-close its side once the request is sent (it still reads the answer). Node
  // then ends the socket at once and the answer is lost; with this (a long-standing property of
  // http.Server) it closes the connection after the answer instead.
  (app.server as typeof app.server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  return app;
}

/** `app.routeTable`: every method and path registered. */
function installRouteTable(app: FastifyInstance): void {
  const routeTable: Array<{ method: string; url: string }> = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      routeTable.push({ method, url: route.url });
    }
  });
}

/**
 * Every request runs in a work context (request id, correlation id; the account once
 * authenticated): every line written while it runs carries them, and what it causes (its jobs,
 * their callbacks) carries the same ids. With tracing on, the request's span starts here too.
 */
function installWorkContext(app: FastifyInstance, clock: Clock): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const correlation = request.headers['x-correlation-id'];
    // The request's logger is a child of the pino logger this app was built with.
    const context = workContext(request.log as unknown as Logger, clock, {
      requestId: request.id,
      correlationId: typeof correlation === 'string' && correlation.trim() !== '' ? correlation : undefined,
    });
    const t = tracing();
    if (!t.enabled) return runInContext(context, done);
    // The request's span, continuing the caller's trace when it sent a `traceparent`.
    const route = request.routeOptions.url;
    const span = t.start(route ? `${request.method} ${route}` : request.method, {
      kind: 'server',
      parent: { headers: request.headers },
      attributes: {
        'http.request.method': request.method,
        'http.route': route,
        'url.scheme': request.protocol,
        'healthspan.request.id': request.id,
      },
    });
    request.traceSpan = span;
    runInContext(context, () => t.within(span, done));
  });
  // Async and apart from the hook above: with the whole chain synchronous, an answer written on
  // the tick the headers arrived was lost when a framing error followed in the body (a case of
  // test/http/fuzz.full.test.ts).
  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
      throw new ApiError(400, 'BAD_REQUEST', 'An HTTP/1.1 request must carry a Host header.');
    }
  });
  app.decorateRequest('submissionLog', null);
  app.decorateRequest('traceSpan', null);
}

/** One line per answered request, and its telemetry. */
function installAccessLog(app: FastifyInstance): void {
  // A callback hook: no promise per answer. The access line is only built when it is written.
  app.addHook('onResponse', (request, reply, done) => {
    requestTelemetry(request, reply);
    // The request's logger is a child of the pino logger this app was built with.
    if ((request.log as unknown as Logger).isLevelEnabled('info')) {
      request.log.info(
        {
          method: request.method,
          route: request.routeOptions.url ?? 'unmatched',
          status: reply.statusCode,
          ms: Math.round(reply.elapsedTime * 10) / 10,
          // The same key the lines of this request's jobs and callbacks carry.
          requestId: request.id,
          tenantId: request.principal?.tenantId,
          correlationId: correlationIdOf(request),
          ...(request.errorCode ? { errorCode: request.errorCode } : {}),
          ...(request.submissionLog ?? {}),
        },
        'request',
      );
    }
    done();
  });
}

/** Browsers on the allowed origins may call the API and read the headers it answers with. */
async function installCors(app: FastifyInstance, origins: string[]): Promise<void> {
  await app.register(cors, {
    origin: origins,
    methods: ['GET', 'POST', 'PUT', 'DELETE', 'OPTIONS'],
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
}

/** The partner API's routes (behind authentication and the limits). */
async function registerPartnerRoutes(
  app: FastifyInstance,
  deps: AppDeps,
  countAction: CountRequest | undefined,
): Promise<void> {
  await app.register(probeRoutes);
  await app.register(submissionRoutes, { clock: deps.clock });
  await app.register(submissionListRoutes, { cursors: deps.cursors, clock: deps.clock });
  await app.register(resultRoutes, { links: deps.links, clock: deps.clock });
  await app.register(fhirRoutes);
  await app.register(artifactRoutes, {
    artifacts: { forArtifact: (id) => deps.tenants.forArtifact(id) },
    links: deps.links,
    clock: deps.clock,
    redirect: deps.config.artifactDownload === 'redirect',
  });
  await app.register(erasureRoutes);
  await app.register(auditRoutes, { cursors: deps.cursors });
  await app.register(testEventRoutes, { sender: deps.testEvents });
  await app.register(webhookEndpointRoutes, { endpoints: deps.webhookEndpoints });
  await app.register(eventReadRoutes, { cursors: deps.cursors });
  await app.register(eventResendRoutes, { sender: deps.events });
  await app.register(listenRoutes, {
    streams: new ListenStreams(
      deps.clock,
      deps.logger,
      { ...LISTEN_TIMING, ...deps.listenTiming },
      deps.config.responseIdleTimeoutMs,
    ),
    listenSecret: deps.listenSecret,
    cursors: deps.cursors,
    clock: deps.clock,
  });
  const { config } = deps;
  await app.register(consoleLinkRoutes, {
    sessions: deps.consoleSessions,
    clock: deps.clock,
    publicBaseUrl: config.publicBaseUrl,
    enabled: config.consoleEnabled,
  });
  if (!config.consoleEnabled) return;
  await app.register(consoleRoutes, {
    prefix: '/console',
    sessions: deps.consoleSessions,
    tenants: deps.tenants,
    links: deps.links,
    cursors: deps.cursors,
    clock: deps.clock,
    csrf: new CsrfTokens(deps.signingSecret),
    cookie: new SessionCookie(config.publicBaseUrl.startsWith('https://')),
    frameAncestors: config.consoleFrameAncestors,
    endpoints: deps.webhookEndpoints,
    events: deps.events,
    keysChanged: () => deps.authenticator.invalidate(),
    countAction,
  });
}
