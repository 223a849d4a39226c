import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleGet, consolePost, csrfOf, signIn } from '../../helpers/console.js';
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
 * The console's Erasures page (issue 31): the account's erasures with their progress, and
 * "Request an erasure" for a manage session, the subject reference typed twice; the request is
 * the API's (same service, same audit), with the console session as the actor.
 */

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});

afterAll(async () => {
  await service?.stop();
});

const MISMATCH = 'The two subject references are not the same.';

/** A subject with one submission in the account, accepted. */
async function subjectWithSubmission(account: TestAccount): Promise<string> {
  const subject = `console-erasure-${randomUUID()}`;
  const res = await postSubmission(
    service,
    bodyFor(account, (b) => {
      b.partnerSubjectId = subject;
    }),
    { apiKey: account.apiKey },
  );
  expect(res.status).toBe(202);
  return subject;
}

/** Both steps of "Request an erasure" from the list page: the last answer. */
async function requestErasure(cookie: string, subject: string, again: string) {
  const list = await consoleGet(service, '/console/erasures', cookie);
  const confirm = await consolePost(service, '/console/erasures/confirm', cookie, {
    _csrf: csrfOf(list.text),
    subject,
  });
  expect(confirm.res.status).toBe(200);
  expect(confirm.text).toContain('<h1>Confirm the erasure</h1>');
  // The first typing rides in the form, never in an address.
  expect(confirm.text).not.toContain(`?subject=`);
  return consolePost(service, '/console/erasures', cookie, { _csrf: csrfOf(confirm.text), subject, again });
}

async function erasuresOf(account: TestAccount) {
  return (await service.store.forTenant(account.tenantId).erasures.list({ limit: 50 })).items;
}

describe('/console/erasures', () => {
  it('refuses a retyping that does not match, in plain words, and requests nothing', async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    const subject = await subjectWithSubmission(account);
    const refused = await requestErasure(cookie, subject, `${subject}x`);
    expect(refused.res.status).toBe(400);
    expect(refused.text).toContain(MISMATCH);
    expect(refused.text).toContain('aria-invalid="true"');
    expect(await erasuresOf(account)).toEqual([]);
    // An empty reference on the first step: a field error on the list page.
    const list = await consoleGet(service, '/console/erasures', cookie);
    const empty = await consolePost(service, '/console/erasures/confirm', cookie, {
      _csrf: csrfOf(list.text),
      subject: '',
    });
    expect(empty.res.status).toBe(400);
    expect(empty.text).toContain('Type the subject reference: 1 to 512 characters.');
  });

  it('requests the erasure when both match; it completes, shown with its progress, audited as the session', async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    const subject = await subjectWithSubmission(account);
    const done = await requestErasure(cookie, subject, subject);
    expect(done.res.status).toBe(303);
    const location = done.res.headers.get('location') ?? '';
    const erasureId = /^\/console\/erasures\/([0-9a-f-]{36})$/.exec(location)?.[1];
    expect(erasureId).toBeDefined();

    const api = await waitUntil(
      async () => {
        const r = await getJson(service, `/v1/erasures/${erasureId}`, { 'x-api-key': account.apiKey });
        return r.json.status === 'completed' ? r.json : undefined;
      },
      60_000,
      'erasure completed',
    );
    expect(api).toMatchObject({ partnerSubjectId: subject, counts: { submissions: 1 } });
    const detail = await consoleGet(service, location, cookie);
    expect(detail.res.status).toBe(200);
    expect(detail.text).toContain('<h1>Erasure</h1>');
    expect(detail.text).toContain('Completed</span>');
    expect(detail.text).toContain('<dt>Submissions erased</dt><dd>1</dd>');
    const list = await consoleGet(service, '/console/erasures', cookie);
    expect(list.text).toContain(`<a href="${location}"><code>${subject}</code></a>`);

    const { items } = await service.store.forTenant(account.tenantId).audit.list({ limit: 50 });
    const sessionId = items.find((e) => e.action === 'console.signed_in')?.resourceId;
    const requested = items.find((e) => e.action === 'subject.erasure_requested');
    expect(requested).toMatchObject({ resourceType: 'erasure', resourceId: erasureId });
    expect(requested?.actor).toEqual({ type: 'console_session', id: sessionId, keyId: account.keyId });
  });

  it('shows a read session no request form, and refuses its forged posts (403)', async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'read' });
    const subject = await subjectWithSubmission(account);
    const list = await consoleGet(service, '/console/erasures', cookie);
    expect(list.res.status).toBe(200);
    expect(list.text).toContain('<h1>Erasures</h1>');
    expect(list.text).not.toContain('Request an erasure');
    expect(list.text).not.toContain('/console/erasures/confirm');
    const _csrf = csrfOf(list.text);
    const confirm = await consolePost(service, '/console/erasures/confirm', cookie, { _csrf, subject });
    expect(confirm.res.status).toBe(403);
    const forged = await consolePost(service, '/console/erasures', cookie, {
      _csrf,
      subject,
      again: subject,
    });
    expect(forged.res.status).toBe(403);
    expect(forged.text).toContain('This session may only look');
    expect(await erasuresOf(account)).toEqual([]);
  });

  it('refuses a post without the CSRF token (403)', async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    const subject = await subjectWithSubmission(account);
    const forged = await consolePost(service, '/console/erasures', cookie, { subject, again: subject });
    expect(forged.res.status).toBe(403);
    expect(forged.text).toContain('This form has expired');
    expect(await erasuresOf(account)).toEqual([]);
  });

  it("answers another account's erasure id, an unknown one and a malformed one with a 404 page", async () => {
    const other = await createAccount(service);
    const theirs = await fetch(`${service.url}/v1/subjects/someone-${randomUUID()}`, {
      method: 'DELETE',
      headers: { 'x-api-key': other.apiKey },
    });
    const theirId = String(((await theirs.json()) as { erasureId: string }).erasureId);
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    for (const id of [theirId, randomUUID(), 'not-an-id']) {
      const page = await consoleGet(service, `/console/erasures/${id}`, cookie);
      expect([id, page.res.status]).toEqual([id, 404]);
      expect(page.text).toContain('No erasure with this id in this account.');
    }
    const list = await consoleGet(service, '/console/erasures', cookie);
    expect(list.text).toContain('No erasures have been requested in this account.');
    expect(list.text).not.toContain(theirId);
  });

  it('pages the list newest first with a cursor, and refuses a cursor that is not its own', async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'read' });
    const tenant = service.store.forTenant(account.tenantId);
    const origin = { actor: { type: 'operator' as const }, requestId: 'console-erasures-test' };
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await tenant.erasures.request(`paged-${i}`, origin)).erasureId);
    const first = await tenant.erasures.list({ limit: 2 });
    expect(first.more).toBe(true);
    const last = first.items.at(-1)!;
    const rest = await tenant.erasures.list({
      limit: 2,
      after: { at: last.requestedAt, id: last.erasureId },
    });
    expect(rest.more).toBe(false);
    const all = [...first.items, ...rest.items];
    expect(all.map((e) => e.erasureId).sort()).toEqual([...made].sort());
    const times = all.map((e) => e.requestedAt);
    expect([...times].sort().reverse()).toEqual(times);
    // A cursor that is not this list's own (made up, or the audit trail's of the same account)
    // is refused as every list refuses one.
    const audit = await getJson(service, '/v1/audit-events?limit=1', { 'x-api-key': account.apiKey });
    const auditCursor = audit.json.nextCursor as string | null;
    expect(auditCursor).toEqual(expect.any(String));
    for (const cursor of ['nope', auditCursor as string]) {
      const bad = await consoleGet(service, `/console/erasures?${new URLSearchParams({ cursor })}`, cookie);
      expect([cursor, bad.res.status]).toEqual([cursor, 400]);
      expect(bad.text).toContain('cursor is not valid here');
    }
  });
});
