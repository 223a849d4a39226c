import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operatorOrigin } from '../../../src/store/repositories/accounts.js';
import { cliFor } from '../../helpers/cli.js';
import { SkewedClock } from '../../helpers/clock.js';
import { consoleGet, consoleLink, consolePost, csrfOf, openLink, signIn } from '../../helpers/console.js';
import { waitUntil } from '../../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
} from '../../helpers/service.js';

/**
 * The console's access (issue 31): one-time links, the session cookie, its limits, CSRF, the
 * headers of every answer, and isolation between accounts. The browser's view is in
 * the `*-browser.test.ts` files beside this one (Chromium, axe).
 */

const clock = new SkewedClock();
let service: TestService;
let account: TestAccount;

beforeAll(async () => {
  service = await startTestService({}, 'all', { clock: clock.date });
  account = await createAccount(service);
});

afterAll(async () => {
  await service?.stop();
});

const MINUTE = 60_000;

describe('POST /v1/console-sessions', () => {
  it('answers 201 with a one-time link on this service, and refuses bad input in the envelope', async () => {
    const link = await consoleLink(service, account.apiKey, { scope: 'manage', ttlSeconds: 600 });
    expect(link.status).toBe(201);
    expect(String(link.json.url)).toMatch(
      new RegExp(`^${service.config.publicBaseUrl}/console/sign-in\\?token=`),
    );
    expect(Date.parse(String(link.json.expiresAt)) - clock.ms()).toBeLessThanOrEqual(5 * MINUTE);
    const bad = await consoleLink(service, account.apiKey, { scope: 'admin', ttlSeconds: 100 });
    expect(bad.status).toBe(400);
    expect(
      Object.keys((bad.json.error as { details: { fieldErrors: object } }).details.fieldErrors).sort(),
    ).toEqual(['scope', 'ttlSeconds']);
    expect((await consoleLink(service, 'hs_live_nope')).status).toBe(401);
  });
});

// First: the CLI stamps the link with the real time, and later tests move the service's clock on.
describe('healthspan-admin console link', () => {
  it('prints a one-time link for a partner (manage, live) that signs in with no key behind it', async () => {
    const own = await createAccount(service);
    const made = await cliFor(service, ['console', 'link', '--partner', own.partnerId, '--scope', 'manage']);
    expect(made.code).toBe(0);
    expect(made.json).toMatchObject({ partnerId: own.partnerId, mode: 'live', scope: 'manage' });
    const { res, cookie } = await openLink(service, String(made.json?.url));
    expect(res.status).toBe(303);
    const page = await consoleGet(service, '/console/', cookie);
    expect(page.res.status).toBe(200);
    expect(page.text).toContain('Switch to test mode');
    const { items } = await service.store.forTenant(own.tenantId).audit.list({ limit: 10 });
    expect(items.find((e) => e.action === 'console.link_created')?.actor).toEqual({ type: 'operator' });
    // An operator's link: the session acts with no key behind it.
    const signedIn = items.find((e) => e.action === 'console.signed_in');
    expect(signedIn?.actor).toEqual({ type: 'console_session', id: signedIn?.resourceId });
    // Test mode before the account has one: refused, naming the way to start it.
    const test = await cliFor(service, ['console', 'link', '--partner', own.partnerId, '--mode', 'test']);
    expect(test.code).toBe(1);
    expect(test.stderr).toContain('has no test mode yet');
  });
});

describe('signing in', () => {
  it('a link works once, sets an HttpOnly SameSite=Lax cookie, redirects without the token, and is never logged', async () => {
    const link = await consoleLink(service, account.apiKey);
    const url = String(link.json.url);
    const token = new URL(url).searchParams.get('token')!;
    const first = await openLink(service, url);
    expect(first.res.status).toBe(303);
    expect(first.res.headers.get('location')).toBe('/console/');
    const setCookie = first.res.headers.get('set-cookie')!;
    expect(setCookie).toMatch(
      /^healthspan_console=[A-Za-z0-9_-]{43}; Max-Age=28800; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const again = await openLink(service, url);
    expect(again.res.status).toBe(403);
    expect(again.cookie).toBeUndefined();
    expect(await again.res.text()).toContain('already been used');
    const page = await consoleGet(service, '/console/', first.cookie);
    expect(page.res.status).toBe(200);
    expect(page.text).toContain('<h1>Overview</h1>');
    await waitUntil(
      async () => service.logs.some((l) => l.includes('/console/sign-in')),
      10_000,
      'access log',
    );
    expect(service.logs.join('')).not.toContain(token);
    expect(service.logs.join('')).not.toContain(first.cookie!.split('=')[1]);
  });

  it('signing in again ends the session the browser presented (ASVS 5.0 §7.2.4), audited as its sign-out', async () => {
    const own = await createAccount(service);
    const old = await signIn(service, own.apiKey);
    expect((await consoleGet(service, '/console/', old)).res.status).toBe(200);
    const link = await consoleLink(service, own.apiKey, { scope: 'manage' });
    const url = new URL(String(link.json.url));
    // The browser still holds the old cookie when it opens the new link.
    const res = await fetch(`${service.url}${url.pathname}${url.search}`, {
      redirect: 'manual',
      headers: { cookie: old },
    });
    expect(res.status).toBe(303);
    const fresh = res.headers.get('set-cookie')!.split(';')[0]!;
    expect(fresh).not.toBe(old);
    expect((await consoleGet(service, '/console/', fresh)).res.status).toBe(200);
    const replaced = await consoleGet(service, '/console/', old);
    expect(replaced.res.status).toBe(401);
    expect(replaced.text).toContain('Ask your team for a new sign-in link');

    const { items } = await service.store.forTenant(own.tenantId).audit.list({ limit: 50 });
    const signIns = items.filter((e) => e.action === 'console.signed_in');
    const signOuts = items.filter((e) => e.action === 'console.signed_out');
    expect(signIns).toHaveLength(2);
    // The old session's sign-out, by that session, in the request that signed in the new one.
    expect(signOuts).toHaveLength(1);
    const older = signIns.find((e) => e.resourceId === signOuts[0]!.resourceId)!;
    const newer = signIns.find((e) => e !== older)!;
    expect(older).toBeDefined();
    expect(signOuts[0]!.actor).toEqual({ type: 'console_session', id: older.resourceId, keyId: own.keyId });
    expect(signOuts[0]!.requestId).toBe(newer.requestId);
    expect((await service.store.console.ended(older.resourceId))?.reason).toBe('replaced');
    expect((await service.store.console.ended(newer.resourceId))?.endedAt).toBeNull();
  });

  it('a refused link leaves the presented session alone', async () => {
    const own = await createAccount(service);
    const cookie = await signIn(service, own.apiKey);
    const res = await fetch(`${service.url}/console/sign-in?token=${'b'.repeat(43)}`, {
      redirect: 'manual',
      headers: { cookie },
    });
    expect(res.status).toBe(403);
    expect((await consoleGet(service, '/console/', cookie)).res.status).toBe(200);
  });

  it('refuses a link after 5 minutes, and a made-up one', async () => {
    const link = await consoleLink(service, account.apiKey);
    clock.advance(5 * MINUTE + 1000);
    expect((await openLink(service, String(link.json.url))).res.status).toBe(403);
    expect(
      (await openLink(service, `${service.url}/console/sign-in?token=${'a'.repeat(43)}`)).res.status,
    ).toBe(403);
    expect((await openLink(service, `${service.url}/console/sign-in`)).res.status).toBe(403);
  });

  it('ends a session after 30 minutes idle, and at its absolute limit however busy', async () => {
    const idle = await signIn(service, account.apiKey);
    clock.advance(29 * MINUTE);
    expect((await consoleGet(service, '/console/', idle)).res.status).toBe(200);
    clock.advance(29 * MINUTE);
    expect((await consoleGet(service, '/console/', idle)).res.status).toBe(200);
    clock.advance(31 * MINUTE);
    const ended = await consoleGet(service, '/console/', idle);
    expect(ended.res.status).toBe(401);
    expect(ended.text).toContain('Ask your team for a new sign-in link');

    const short = await signIn(service, account.apiKey, { scope: 'read', ttlSeconds: 300 });
    clock.advance(4 * MINUTE);
    expect((await consoleGet(service, '/console/', short)).res.status).toBe(200);
    clock.advance(2 * MINUTE);
    expect((await consoleGet(service, '/console/', short)).res.status).toBe(401);
  });

  it('revoking the key that made the link ends its sessions at the next request', async () => {
    const own = await createAccount(service);
    const cookie = await signIn(service, own.apiKey);
    expect((await consoleGet(service, '/console/', cookie)).res.status).toBe(200);
    await service.store.system.accounts.revokeKey(own.keyId, operatorOrigin('test'));
    expect((await consoleGet(service, '/console/', cookie)).res.status).toBe(401);
  });

  it('deactivating the account ends its sessions', async () => {
    const own = await createAccount(service);
    const cookie = await signIn(service, own.apiKey);
    await service.store.system.accounts.setTenantActive(own.tenantId, false, operatorOrigin('test'));
    expect((await consoleGet(service, '/console/', cookie)).res.status).toBe(401);
  });
});

describe('every console answer', () => {
  it('carries the security headers, signed in or not, page or error', async () => {
    const cookie = await signIn(service, account.apiKey);
    for (const [path, withCookie, status] of [
      ['/console/', true, 200],
      ['/console/submissions', true, 200],
      ['/console/submissions/not-an-id', true, 404],
      ['/console/nowhere', true, 404],
      ['/console/', false, 401],
      ['/console/assets/console.css', false, 200],
    ] as const) {
      const { res } = await consoleGet(service, path, withCookie ? cookie : undefined);
      expect([path, res.status]).toEqual([path, status]);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("base-uri 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });
});

describe('state-changing requests', () => {
  it('refuse a POST without the CSRF token or with another session’s', async () => {
    const cookie = await signIn(service, account.apiKey);
    const other = await signIn(service, account.apiKey);
    const otherToken = csrfOf((await consoleGet(service, '/console/', other)).text);
    expect((await consolePost(service, '/console/sign-out', cookie, {})).res.status).toBe(403);
    expect((await consolePost(service, '/console/sign-out', cookie, { _csrf: otherToken })).res.status).toBe(
      403,
    );
    expect((await consoleGet(service, '/console/', cookie)).res.status).toBe(200);
    const token = csrfOf((await consoleGet(service, '/console/', cookie)).text);
    const out = await consolePost(service, '/console/sign-out', cookie, { _csrf: token });
    expect(out.res.status).toBe(200);
    expect(out.res.headers.get('set-cookie')).toMatch(/Max-Age=0/);
    expect((await consoleGet(service, '/console/', cookie)).res.status).toBe(401);
  });
});

describe('isolation', () => {
  it("another account's submission is a 404 page, and the list shows only this account's", async () => {
    const other = await createAccount(service);
    const theirs = await postSubmission(service, bodyFor(other), { apiKey: other.apiKey });
    const mine = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    const cookie = await signIn(service, account.apiKey);
    const foreign = await consoleGet(service, `/console/submissions/${theirs.json.submissionId}`, cookie);
    expect(foreign.res.status).toBe(404);
    expect(foreign.text).toContain('No submission with this id');
    const own = await consoleGet(service, `/console/submissions/${mine.json.submissionId}`, cookie);
    expect(own.res.status).toBe(200);
    const list = await consoleGet(service, '/console/submissions', cookie);
    expect(list.text).toContain(`/console/submissions/${mine.json.submissionId}`);
    expect(list.text).not.toContain(String(theirs.json.submissionId));
  });

  it('a test-mode session never shows live data', async () => {
    const own = await createAccount(service);
    const live = await postSubmission(service, bodyFor(own), { apiKey: own.apiKey });
    const { generateApiKey } = await import('../../../src/auth/api-keys.js');
    const key = generateApiKey('test');
    await service.store.system.accounts.insertKey(
      {
        partnerId: own.partnerId,
        keyHash: key.hash,
        keyPrefix: key.displayPrefix,
        expiresAt: null,
        mode: 'test',
      },
      operatorOrigin('test'),
    );
    const cookie = await signIn(service, key.apiKey);
    const list = await consoleGet(service, '/console/submissions', cookie);
    expect(list.res.status).toBe(200);
    expect(list.text).toContain('Test data');
    expect(list.text).not.toContain(String(live.json.submissionId));
    const page = await consoleGet(service, `/console/submissions/${live.json.submissionId}`, cookie);
    expect(page.res.status).toBe(404);
  });
});

describe('scopes and the audit trail', () => {
  it('a read session sees no change button and a forged POST from it is refused; a manage session gets through to the action', async () => {
    const mine = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    const path = `/console/submissions/${mine.json.submissionId}`;
    await waitUntil(async () => {
      const res = await getJson(service, `/v1/submissions/${mine.json.submissionId}`, {
        'x-api-key': account.apiKey,
      });
      return res.json.status === 'completed';
    });

    const reader = await signIn(service, account.apiKey, { scope: 'read' });
    const readPage = await consoleGet(service, path, reader);
    expect(readPage.text).not.toContain('Send the callback again');
    const forged = await consolePost(service, `${path}/resend-callback`, reader, {
      _csrf: csrfOf(readPage.text),
    });
    expect(forged.res.status).toBe(403);
    expect(forged.text).toContain('may only look');

    const manager = await signIn(service, account.apiKey, { scope: 'manage' });
    const managePage = await consoleGet(service, path, manager);
    expect(managePage.text).toContain('Send the callback again');
    const sent = await consolePost(service, `${path}/resend-callback`, manager, {
      _csrf: csrfOf(managePage.text),
    });
    // No callback URL is registered for this account: refused by the action, not by the scope.
    expect(sent.res.status).toBe(409);
    expect(sent.text).toContain('No callback URL is set for this mode');
  });

  it('records sign-ins as the console session, with the key that asked for the link', async () => {
    const own = await createAccount(service);
    await signIn(service, own.apiKey);
    const { items } = await service.store.forTenant(own.tenantId).audit.list({ limit: 50 });
    const created = items.find((e) => e.action === 'console.link_created');
    const signedIn = items.find((e) => e.action === 'console.signed_in');
    expect(created?.actor).toEqual({ type: 'api_key', keyId: own.keyId });
    // The session is the actor, by its id, beside the key that made it; the correlation id is
    // the request's own (none sent here).
    expect(signedIn?.actor).toEqual({ type: 'console_session', id: signedIn?.resourceId, keyId: own.keyId });
    expect(signedIn?.correlationId).toBeUndefined();
    const bySession = items.filter((e) => e.actor.id === signedIn?.resourceId);
    expect(bySession.map((e) => e.action)).toEqual(['console.signed_in']);
  });
});

describe('CONSOLE_ENABLED=false', () => {
  it('serves no console and makes no links', async () => {
    const off = await startTestService({ CONSOLE_ENABLED: 'false' });
    try {
      const own = await createAccount(off);
      const link = await consoleLink(off, own.apiKey);
      expect(link.status).toBe(404);
      expect((await consoleGet(off, '/console/', undefined)).res.status).toBe(404);
      expect(off.app.routeTable.filter((r) => r.url.startsWith('/console'))).toEqual([]);
    } finally {
      await off.stop();
    }
  });
});
