import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';
import { hashApiKey } from '../auth/api-keys.js';
import type { Authenticator, Principal } from '../auth/authenticator.js';
import { addToContext } from '../context.js';
import type { AuditOrigin } from '../domain/audit.js';
import type { TenantAccess, TenantGateway } from '../store/tenant-access.js';
import type { AuthFailureLimit } from './auth-failures.js';
import { ApiError, correlationIdOf } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
    /** Data access bound to the authenticated account: the only data access a route gets. */
    tenant: TenantAccess | null;
  }
  interface FastifyContextConfig {
    /** Routes that need an API key set this; support routes leave it off. */
    auth?: boolean;
  }
}

const keyHashes = new WeakMap<FastifyRequest, string>();

/**
 * The presented key's hash, computed once per request: the rate limiter names its counter with
 * it, and the failure limit and the authenticator look it up.
 */
export function presentedKeyHash(request: FastifyRequest, key: string): string {
  let hash = keyHashes.get(request);
  if (hash === undefined) {
    hash = hashApiKey(key);
    keyHashes.set(request, hash);
  }
  return hash;
}

/** How a request carries its key: which header, and the key (`''`: an Authorization header without one). */
interface Presentation {
  header: 'X-Api-Key' | 'Authorization' | undefined;
  key: string | undefined;
}

function presentation(request: FastifyRequest): Presentation {
  const header = request.headers['x-api-key'];
  const apiKey = Array.isArray(header) ? header[0] : header;
  if (apiKey !== undefined && apiKey.trim() !== '') return { header: 'X-Api-Key', key: apiKey.trim() };
  const authorization = request.headers.authorization;
  if (authorization === undefined) return { header: undefined, key: undefined };
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return { header: 'Authorization', key: match ? match[1] : '' };
}

/** The key from `X-Api-Key`, else from `Authorization: Bearer`. */
export function presentedKey(request: FastifyRequest): string | undefined {
  return presentation(request).key;
}

const HOW_TO_SEND = 'in the X-Api-Key header, or as Authorization: Bearer <key>';

/**
 * What a refused key's answer says: whether a key was sent at all, in which header, and the two
 * headers accepted. Never which of unknown, revoked or expired: that would tell a caller holding
 * someone else's old key that it once existed.
 */
function invalidKeyMessage(sent: Presentation | undefined): string {
  if (sent === undefined) return `The API key is missing or not accepted. Send a current key ${HOW_TO_SEND}.`;
  if (sent.header === undefined) return `No API key was sent. Send your key ${HOW_TO_SEND}.`;
  if (!sent.key) {
    return `The Authorization header carries no API key. Send Authorization: Bearer <key>, or the key in the X-Api-Key header.`;
  }
  const where = sent.header === 'X-Api-Key' ? 'the X-Api-Key header' : 'Authorization: Bearer';
  return `The API key sent in ${where} is not accepted: it is mistyped, revoked or expired. Send a current key ${HOW_TO_SEND}.`;
}

const INVALID = (sent?: Presentation) =>
  new ApiError(401, 'INVALID_API_KEY', invalidKeyMessage(sent), undefined, {
    'www-authenticate': 'Bearer realm="healthspan"',
  });

const TOO_MANY_FAILURES = (waitMs: number) => {
  const seconds = Math.ceil(waitMs / 1000);
  return new ApiError(
    429,
    'RATE_LIMITED',
    `Too many failed API-key checks from this address; retry after ${seconds} seconds.`,
    undefined,
    { 'retry-after': String(seconds) },
  );
};

/**
 * Adds authentication to every route marked `config.auth`, as a route-level hook added after
 * the rate limiter's, so even a rejected key is counted and answered with rate-limit headers.
 * With a failure limit, an address that failed too often gets `429` for keys it has not used
 * successfully before (`AuthFailureLimit`).
 */
export function installAuth(
  app: FastifyInstance,
  authenticator: Authenticator,
  tenants: TenantGateway,
  failures?: AuthFailureLimit,
): void {
  app.decorateRequest('principal', null);
  app.decorateRequest('tenant', null);
  const authenticate: onRequestHookHandler = async (request) => {
    if (request.method === 'OPTIONS') return;
    const sent = presentation(request);
    const presented = sent.key;
    const keyHash = presented ? presentedKeyHash(request, presented) : '';
    if (failures && presented) {
      const waitMs = await failures.waitMs(request.ip, keyHash);
      if (waitMs > 0) throw TOO_MANY_FAILURES(waitMs);
    }
    const outcome = await authenticator.authenticate(presented, keyHash);
    if (outcome.ok) {
      request.principal = outcome.principal;
      request.tenant = tenants.forTenant(outcome.principal.tenantId);
      addToContext({ tenantId: outcome.principal.tenantId });
      failures?.succeeded(request.ip, keyHash);
      return;
    }
    if (outcome.reason === 'inactive') {
      throw ApiError.accountInactive();
    }
    if (failures && presented) await failures.failed(request.ip);
    throw INVALID(sent);
  };
  app.addHook('onRoute', (route) => {
    if (route.config?.auth !== true) return;
    const existing =
      route.onRequest === undefined
        ? []
        : Array.isArray(route.onRequest)
          ? route.onRequest
          : [route.onRequest];
    route.onRequest = [...existing, authenticate];
  });
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw INVALID();
  return request.principal;
}

/** The authenticated account's data access (routes marked `config.auth` always have one). */
export function tenantOf(request: FastifyRequest): TenantAccess {
  if (!request.tenant) throw INVALID();
  return request.tenant;
}

/** Who a request acts as, for the audit trail: its API key (by id) and its ids. */
export function originOf(request: FastifyRequest): AuditOrigin {
  const correlationId = correlationIdOf(request)?.slice(0, 255);
  return {
    actor: { type: 'api_key', keyId: principalOf(request).keyId },
    requestId: request.id,
    ...(correlationId !== undefined ? { correlationId } : {}),
  };
}
