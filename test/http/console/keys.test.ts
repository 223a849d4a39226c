import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleGet, consolePost, csrfOf, signIn } from '../../helpers/console.js';
import {
  createAccount,
  getJson,
  startTestService,
  type TestAccount,
  type TestService,
  testKeyFor,
} from '../../helpers/service.js';

/**
 * The console's API keys and audit trail pages (issue 31): keys listed, created (shown once, and
 * working against the API) and revoked through the session's account only; the audit trail is
 * the API's.
 */

let service: TestService;
let account: TestAccount;

beforeAll(async () => {
  service = await startTestService();
  account = await createAccount(service);
});

afterAll(async () => {
  await service?.stop();
});

const KEY_PATTERN = /hs_(live|test)_[A-Za-z0-9_-]{43}/;

/** Creates a key from a manage session's keys page: the answer's page and the key it shows. */
async function createFromConsole(cookie: string, fields: Record<string, string>) {
  const keys = await consoleGet(service, '/console/keys', cookie);
  const made = await consolePost(service, '/console/keys', cookie, { _csrf: csrfOf(keys.text), ...fields });
  const apiKey = KEY_PATTERN.exec(made.text)?.[0];
  return { made, apiKey };
}

/** The audit table's rows: what was done, and to which id. */
function rowsOf(html: string): Array<[string, string]> {
  const rows = html.matchAll(/<tr><td>[^<]+<\/td><td>([^<]+)<\/td><td>[^<]+<code>([^<]+)<\/code>/g);
  return [...rows].map((m) => [m[1]!, m[2]!]);
}

/** The id of the key whose prefix starts `apiKey`, from the keys page's revoke links. */
function keyIdOf(html: string, apiKey: string): string {
  const prefix = apiKey.slice(0, 14);
  const match = new RegExp(`/console/keys/([0-9a-f-]{36})/revoke" aria-label="Revoke key ${prefix}"`).exec(
    html,
  );
  if (!match?.[1]) throw new Error(`no revoke link for ${prefix}`);
  return match[1];
}

describe('/console/keys', () => {
  it("lists the account's keys by prefix, mode and dates, never a key", async () => {
    const own = await createAccount(service);
    const test = await testKeyFor(service, own);
    const cookie = await signIn(service, own.apiKey, { scope: 'manage' });
    const page = await consoleGet(service, '/console/keys', cookie);
    expect(page.res.status).toBe(200);
    expect(page.text).toContain('<h1>API keys</h1>');
    expect(page.text).toContain(`<code>${own.apiKey.slice(0, 14)}…</code>`);
    expect(page.text).toContain(`<code>${test.apiKey.slice(0, 14)}…</code>`);
    expect(page.text).toContain('<th scope="col">Mode</th>');
    expect(page.text).toContain("(this session's key)");
    expect(page.text).not.toMatch(KEY_PATTERN);
    expect(page.text).not.toContain(account.apiKey.slice(0, 14));
  });

  it('creates a key shown once, which works against the API; revoking it ends its use', async () => {
    const own = await createAccount(service);
    const cookie = await signIn(service, own.apiKey, { scope: 'manage' });
    const { made, apiKey } = await createFromConsole(cookie, { mode: 'live', expiresIn: '30d' });
    expect(made.res.status).toBe(201);
    expect(made.text).toContain('this is the only time it is shown');
    expect(apiKey).toMatch(/^hs_live_/);
    expect((await getJson(service, '/v1/audit-events', { 'x-api-key': apiKey! })).status).toBe(200);
    const again = await consoleGet(service, '/console/keys', cookie);
    expect(again.text).not.toContain(apiKey);
    expect(again.text).toContain(apiKey!.slice(0, 14));

    const keyId = keyIdOf(again.text, apiKey!);
    const confirm = await consoleGet(service, `/console/keys/${keyId}/revoke`, cookie);
    expect(confirm.res.status).toBe(200);
    expect(confirm.text).toContain('Revoke this key');
    const revoked = await consolePost(service, `/console/keys/${keyId}/revoke`, cookie, {
      _csrf: csrfOf(confirm.text),
    });
    expect(revoked.res.status).toBe(303);
    expect(revoked.res.headers.get('location')).toBe('/console/keys?revoked=1');
    expect((await getJson(service, '/v1/audit-events', { 'x-api-key': apiKey! })).status).toBe(401);
    // The session's own key still works, and so does the session.
    expect((await getJson(service, '/v1/audit-events', { 'x-api-key': own.apiKey })).status).toBe(200);
    const after = await consoleGet(service, '/console/keys?revoked=1', cookie);
    expect(after.text).toContain('The key was revoked.');
    expect(after.text).toContain('Revoked</span>');
  });

  it('a test key’s session creates test keys only', async () => {
    const own = await createAccount(service);
    const test = await testKeyFor(service, own);
    const cookie = await signIn(service, test.apiKey, { scope: 'manage' });
    const page = await consoleGet(service, '/console/keys', cookie);
    expect(page.text).not.toContain(own.apiKey.slice(0, 14));
    expect(page.text).not.toContain('<select id="k-mode"');
    const live = await createFromConsole(cookie, { mode: 'live', expiresIn: '' });
    expect(live.made.res.status).toBe(403);
    expect(live.apiKey).toBeUndefined();
    const made = await createFromConsole(cookie, { mode: 'test', expiresIn: '' });
    expect(made.apiKey).toMatch(/^hs_test_/);
    expect((await getJson(service, '/v1/audit-events', { 'x-api-key': made.apiKey! })).status).toBe(200);
  });

  it('revoking the key that made the session ends the session at its next request', async () => {
    const own = await createAccount(service);
    const cookie = await signIn(service, own.apiKey, { scope: 'manage' });
    const confirm = await consoleGet(service, `/console/keys/${own.keyId}/revoke`, cookie);
    expect(confirm.text).toContain('revoking it signs you out');
    const revoked = await consolePost(service, `/console/keys/${own.keyId}/revoke`, cookie, {
      _csrf: csrfOf(confirm.text),
    });
    expect(revoked.res.status).toBe(303);
    const next = await consoleGet(service, '/console/keys?revoked=1', cookie);
    expect(next.res.status).toBe(401);
    expect(next.text).toContain('Ask your team for a new sign-in link');
    expect((await getJson(service, '/v1/audit-events', { 'x-api-key': own.apiKey })).status).toBe(401);
  });

  it('a read session sees no create or revoke buttons, and its forged POSTs are refused (403)', async () => {
    const own = await createAccount(service);
    const reader = await signIn(service, own.apiKey, { scope: 'read' });
    const page = await consoleGet(service, '/console/keys', reader);
    expect(page.res.status).toBe(200);
    expect(page.text).not.toContain('Create a key');
    expect(page.text).not.toContain('/revoke');
    const csrf = csrfOf(page.text);
    const create = await consolePost(service, '/console/keys', reader, {
      _csrf: csrf,
      mode: 'live',
      expiresIn: '',
    });
    expect(create.res.status).toBe(403);
    expect(create.text).toContain('may only look');
    expect(create.text).not.toMatch(KEY_PATTERN);
    const revoke = await consolePost(service, `/console/keys/${own.keyId}/revoke`, reader, { _csrf: csrf });
    expect(revoke.res.status).toBe(403);
    expect((await consoleGet(service, `/console/keys/${own.keyId}/revoke`, reader)).res.status).toBe(403);
    expect((await getJson(service, '/v1/audit-events', { 'x-api-key': own.apiKey })).status).toBe(200);
  });

  it('refuses a POST without the CSRF token (403)', async () => {
    const own = await createAccount(service);
    const cookie = await signIn(service, own.apiKey, { scope: 'manage' });
    const create = await consolePost(service, '/console/keys', cookie, { mode: 'live', expiresIn: '' });
    expect(create.res.status).toBe(403);
    expect(create.text).not.toMatch(KEY_PATTERN);
    const revoke = await consolePost(service, `/console/keys/${own.keyId}/revoke`, cookie, {});
    expect(revoke.res.status).toBe(403);
    expect((await consoleGet(service, '/console/keys', cookie)).res.status).toBe(200);
  });

  it('answers every keys and audit page, the new key’s included, with the console headers and no-store', async () => {
    const own = await createAccount(service);
    const cookie = await signIn(service, own.apiKey, { scope: 'manage' });
    const { made } = await createFromConsole(cookie, { mode: 'test', expiresIn: '90d' });
    expect(made.text).toContain('Your new test key');
    const pages = [
      made.res,
      (await consoleGet(service, '/console/keys', cookie)).res,
      (await consoleGet(service, `/console/keys/${own.keyId}/revoke`, cookie)).res,
      (await consoleGet(service, '/console/audit', cookie)).res,
    ];
    for (const res of pages) {
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });

  it("another account's key id is a 404 page, and that key stays usable", async () => {
    const own = await createAccount(service);
    const other = await createAccount(service);
    const cookie = await signIn(service, own.apiKey, { scope: 'manage' });
    const confirm = await consoleGet(service, `/console/keys/${other.keyId}/revoke`, cookie);
    expect(confirm.res.status).toBe(404);
    expect(confirm.text).toContain('No API key with this id in this account.');
    const csrf = csrfOf((await consoleGet(service, '/console/keys', cookie)).text);
    const revoke = await consolePost(service, `/console/keys/${other.keyId}/revoke`, cookie, { _csrf: csrf });
    expect(revoke.res.status).toBe(404);
    expect(
      (await consolePost(service, '/console/keys/not-an-id/revoke', cookie, { _csrf: csrf })).res.status,
    ).toBe(404);
    expect((await getJson(service, '/v1/audit-events', { 'x-api-key': other.apiKey })).status).toBe(200);
  });
});

describe('/console/audit', () => {
  it("shows the console's actions in plain words, newest first, as the API lists them", async () => {
    const own = await createAccount(service);
    const cookie = await signIn(service, own.apiKey, { scope: 'manage' });
    const { apiKey } = await createFromConsole(cookie, { mode: 'live', expiresIn: '' });
    const keys = await consoleGet(service, '/console/keys', cookie);
    const keyId = keyIdOf(keys.text, apiKey!);
    await consolePost(service, `/console/keys/${keyId}/revoke`, cookie, { _csrf: csrfOf(keys.text) });

    const page = await consoleGet(service, '/console/audit', cookie);
    expect(page.res.status).toBe(200);
    expect(page.text).toContain('<h1>Audit trail</h1>');
    const api = await getJson(service, '/v1/audit-events', { 'x-api-key': own.apiKey });
    const items = api.json.items as Array<{ action: string; resourceId: string; actor: { type: string } }>;
    // The API's newest first is the page's order (the API read itself is not recorded).
    const shown = rowsOf(page.text);
    expect(shown.map((r) => r[1])).toEqual(items.map((e) => e.resourceId));
    expect(items.slice(0, 2).map((e) => [e.action, e.resourceId, e.actor.type])).toEqual([
      ['key.revoked', keyId, 'console_session'],
      ['key.created', keyId, 'console_session'],
    ]);
    expect(shown.slice(0, 2).map((r) => r[0])).toEqual(['API key revoked', 'API key created']);
    expect(page.text).toContain(`Console session (opened with key ${own.apiKey.slice(0, 14)}…)`);
    expect(page.text).toContain('Signed in to the console');
  });

  it('pages with the API cursor and refuses a bad page size in plain words', async () => {
    const own = await createAccount(service);
    const cookie = await signIn(service, own.apiKey, { scope: 'read' });
    const first = await consoleGet(service, '/console/audit?limit=1', cookie);
    const next = /href="(\/console\/audit\?limit=1&amp;cursor=[^"]+)"/.exec(first.text)?.[1];
    expect(next).toBeDefined();
    const second = await consoleGet(service, next!.replaceAll('&amp;', '&'), cookie);
    expect(second.res.status).toBe(200);
    const ids = (html: string) => rowsOf(html).map((r) => r[1]);
    expect(ids(second.text)).toHaveLength(1);
    expect(ids(second.text)).not.toEqual(ids(first.text));
    const bad = await consoleGet(service, '/console/audit?limit=500', cookie);
    expect(bad.res.status).toBe(400);
    expect(bad.text).toContain('from 1 to 200');
    expect(bad.text).toContain('aria-invalid="true"');
  });

  it("shows the mode shown's trail only, and another account's events never", async () => {
    const own = await createAccount(service);
    const other = await createAccount(service);
    const theirs = await signIn(service, other.apiKey, { scope: 'read' });
    await consoleGet(service, '/console/keys', theirs);
    const cookie = await signIn(service, own.apiKey, { scope: 'read' });
    const page = await consoleGet(service, '/console/audit', cookie);
    const api = await getJson(service, '/v1/audit-events', { 'x-api-key': other.apiKey });
    for (const e of api.json.items as Array<{ resourceId: string }>)
      expect(page.text).not.toContain(e.resourceId);
  });
});
