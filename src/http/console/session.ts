import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashSecret } from '../../auth/secret-token.js';
import type { AuditOrigin } from '../../domain/audit.js';
import type {
  ConsoleGateway,
  ConsoleSessionEnd,
  ConsoleSessionRecord,
  TenantAccess,
  TenantGateway,
} from '../../store/tenant-access.js';
import { sessionOrigin } from '../../store/tenant-access.js';
import { correlationIdOf } from '../errors.js';
import type { CsrfTokens } from './tokens.js';

/** A session ends after this long without a request (OWASP ASVS 5.0 §7.3). */
export const IDLE_MS = 30 * 60 * 1000;

/** What a signed-in console request acts with. */
export interface ConsoleState {
  session: ConsoleSessionRecord;
  /** The account of the mode shown; undefined for test mode before the account has a sandbox. */
  tenant: TenantAccess | undefined;
  csrf: string;
  origin: AuditOrigin;
}

/**
 * The session cookie, through @fastify/cookie (registered in the console's scope). Browsers
 * accept a `__Host-` cookie only with `Secure`, so on an http:// base URL (development) it goes
 * without the prefix; either way `HttpOnly`, `SameSite=Lax`, `Path=/`, no `Domain`.
 */
export class SessionCookie {
  readonly name: string;
  private readonly options: CookieSerializeOptions;

  constructor(secure: boolean) {
    this.name = secure ? '__Host-healthspan_console' : 'healthspan_console';
    this.options = { path: '/', httpOnly: true, sameSite: 'lax', secure };
  }

  read(request: FastifyRequest): string | undefined {
    return request.cookies[this.name];
  }

  set(reply: FastifyReply, value: string, maxAgeSeconds: number): void {
    reply.setCookie(this.name, value, { ...this.options, maxAge: maxAgeSeconds });
  }

  clear(reply: FastifyReply): void {
    this.set(reply, '', 0);
  }
}

export interface SessionDeps {
  sessions: ConsoleGateway;
  tenants: TenantGateway;
  cookie: SessionCookie;
  csrf: CsrfTokens;
  clock: () => Date;
}

/**
 * The console state of the request's cookie, or why there is none. Every request restarts the
 * idle timer; the live/test switch picks the account whose access the pages get (a test key's
 * session stays in test mode).
 */
export async function loadSession(
  request: FastifyRequest,
  deps: SessionDeps,
): Promise<{ ok: true; state: ConsoleState } | { ok: false; reason: ConsoleSessionEnd }> {
  const cookie = deps.cookie.read(request);
  if (cookie === undefined || cookie === '') return { ok: false, reason: 'unknown' };
  const now = deps.clock();
  const found = await deps.sessions.find(hashSecret(cookie), now, IDLE_MS);
  if (!found.ok) return found;
  const { session } = found;
  await deps.sessions.touch(session.sessionId, now);
  const tenantId =
    session.keyMode === 'test'
      ? session.tenantId
      : await deps.sessions.tenantForMode(session.liveTenantId, session.mode);
  return {
    ok: true,
    state: {
      session,
      tenant: tenantId === undefined ? undefined : deps.tenants.forTenant(tenantId),
      csrf: deps.csrf.for(session.sessionId),
      origin: sessionOrigin(
        session.sessionId,
        session.keyId,
        request.id,
        correlationIdOf(request)?.slice(0, 255),
      ),
    },
  };
}
