import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleGet, consolePost, csrfOf, signIn } from '../../helpers/console.js';
import { completeSubmission, waitUntil } from '../../helpers/pipeline.js';
import { TestReceiver } from '../../helpers/receiver.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
  testKeyFor,
} from '../../helpers/service.js';

/**
 * The console's Callbacks pages (issue 31): the endpoint set, enabled and its secret rotated,
 * events listed, read, sent again and recovered, through the same services as the API, for the
 * session's account only; a read session sees no secret or button and its posts are refused.
 */

const DEADLINE = 60_000;
const SECRET_PATTERN = /whsec_[A-Za-z0-9+/=]{20,}/;
const receiver = new TestReceiver();
let receiverUrl: string;
let service: TestService;

beforeAll(async () => {
  receiverUrl = await receiver.start();
  service = await startTestService({
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_RETRY_SCHEDULE: '0s',
  });
});
afterAll(async () => {
  await service?.stop();
  await receiver.stop();
});

/** Posts a form of the page at `from` (its CSRF token added). */
async function postFrom(cookie: string, from: string, action: string, fields: Record<string, string> = {}) {
  const page = await consoleGet(service, from, cookie);
  return consolePost(service, action, cookie, { _csrf: csrfOf(page.text), ...fields });
}

async function endpointOf(account: TestAccount) {
  return getJson(service, '/v1/webhook-endpoint', { 'x-api-key': account.apiKey });
}

/** The id of the account's event for `resultId`, once its delivery has reached `status`. */
async function eventIdOf(account: TestAccount, resultId: string, status: string): Promise<string> {
  return waitUntil(
    async () => {
      const page = (await getJson(service, '/v1/events', { 'x-api-key': account.apiKey })).json as {
        items: Array<{ eventId: string; resultId: string; deliveryStatus: string }>;
      };
      return page.items.find((i) => i.resultId === resultId && i.deliveryStatus === status)?.eventId;
    },
    DEADLINE,
    `the event of ${resultId} to be ${status}`,
  );
}

describe('/console/callbacks', () => {
  it('without an endpoint says so; a manage session sets the URL and sees the new secret once', async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    const empty = await consoleGet(service, '/console/callbacks', cookie);
    expect(empty.res.status).toBe(200);
    expect(empty.text).toContain('<h1>Callbacks</h1>');
    expect(empty.text).toContain('No callback URL is set for this mode');
    expect(empty.text).toContain('Save the URL');

    const bad = await postFrom(cookie, '/console/callbacks', '/console/callbacks/endpoint', {
      url: 'ftp://x',
    });
    expect(bad.res.status).toBe(400);
    expect(bad.text).toMatch(/id="cb-url-error"/);
    expect(bad.text).toContain('aria-invalid="true"');

    const set = await postFrom(cookie, '/console/callbacks', '/console/callbacks/endpoint', {
      url: receiverUrl,
    });
    expect(set.res.status).toBe(201);
    const secret = SECRET_PATTERN.exec(set.text)?.[0];
    expect(secret).toBeDefined();
    expect(set.text).toContain('this is the only time it is shown');
    expect((await endpointOf(account)).json).toMatchObject({ url: receiverUrl, status: 'enabled' });

    const again = await consoleGet(service, '/console/callbacks', cookie);
    expect(again.text).toContain(receiverUrl);
    expect(again.text).not.toMatch(SECRET_PATTERN);
    // Changing the URL keeps the secret: none is shown.
    const changed = await postFrom(cookie, '/console/callbacks', '/console/callbacks/endpoint', {
      url: `${receiverUrl}?moved=1`,
    });
    expect(changed.res.status).toBe(303);
    expect(changed.res.headers.get('location')).toBe('/console/callbacks?saved=1');
  });

  it('rotates the secret: the new one is shown on the answer only, never in a URL', async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    await postFrom(cookie, '/console/callbacks', '/console/callbacks/endpoint', { url: receiverUrl });
    const rotated = await postFrom(cookie, '/console/callbacks', '/console/callbacks/rotate-secret', {
      activateIn: '1h',
    });
    expect(rotated.res.status).toBe(200);
    expect(rotated.res.headers.get('location')).toBeNull();
    const secret = SECRET_PATTERN.exec(rotated.text)?.[0];
    expect(secret).toBeDefined();
    expect(rotated.text).toContain('data-copy="new-secret-value"');
    const later = await consoleGet(service, '/console/callbacks', cookie);
    expect(later.text).not.toContain(secret!);
    const endpoint = (await endpointOf(account)).json as { signingSecrets: unknown[] };
    expect(endpoint.signingSecrets).toHaveLength(2);

    // A second rotation while the first is pending: the page tells the three apart by their ids,
    // the one that starts signing last first, and names the new one by the same id.
    const again = await postFrom(cookie, '/console/callbacks', '/console/callbacks/rotate-secret', {
      activateIn: '24h',
    });
    const secrets = (await endpointOf(account)).json.signingSecrets as Array<{
      secretId: string;
      active: boolean;
    }>;
    expect(secrets).toHaveLength(3);
    const [newest, pending, current] = secrets.map((x) => `Secret …${x.secretId.slice(-8)}`);
    expect(again.text).toContain(`Your new signing secret (${newest})`);
    const shown = await consoleGet(service, '/console/callbacks', cookie);
    const items = [...shown.text.matchAll(/<li>(Secret …[0-9a-f]{8}): ([^<]+)<\/li>/g)].map((m) => [
      m[1],
      m[2],
    ]);
    expect(items.map((i) => i[0])).toEqual([newest, pending, current]);
    expect(items.map((i) => i[1]?.split(' ')[0])).toEqual(['signs', 'signs', 'in']);
    expect(new Set(items.map((i) => i[0])).size).toBe(3);
  });

  it('shows a disabled endpoint as a banner in words, and enables it', async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    await postFrom(cookie, '/console/callbacks', '/console/callbacks/endpoint', { url: receiverUrl });
    await service.store.driver.db
      .updateTable('webhook_endpoints')
      .set({ status: 'disabled', disabled_at: new Date().toISOString(), disabled_reason: 'test' })
      .where('partner_id', '=', account.partnerId)
      .execute();
    const page = await consoleGet(service, '/console/callbacks', cookie);
    expect(page.text).toMatch(
      /<div class="warning" role="status"><p><strong>Callbacks are disabled<\/strong>/,
    );
    expect(page.text).toContain('>Enable</button>');
    const enabled = await postFrom(cookie, '/console/callbacks', '/console/callbacks/enable');
    expect(enabled.res.status).toBe(303);
    expect(enabled.res.headers.get('location')).toBe('/console/callbacks?enabled=1');
    expect((await endpointOf(account)).json).toMatchObject({ status: 'enabled' });
    const after = await consoleGet(service, '/console/callbacks?enabled=1', cookie);
    expect(after.text).toContain('The callback endpoint is enabled');
    expect(after.text).not.toContain('Callbacks are disabled');
  });

  it('lists events, shows one with its attempts, redelivers it and recovers a window', async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    await postFrom(cookie, '/console/callbacks', '/console/callbacks/endpoint', { url: receiverUrl });
    const resultId = await completeSubmission(service, account);
    const eventId = await eventIdOf(account, resultId, 'delivered');

    const list = await consoleGet(service, '/console/callbacks?deliveryStatus=delivered', cookie);
    expect(list.text).toContain(`/console/callbacks/events/${eventId}`);
    const badFilter = await consoleGet(service, '/console/callbacks?createdAfter=yesterday', cookie);
    expect(badFilter.res.status).toBe(400);
    expect(badFilter.text).toContain('id="cb-createdAfter-error"');

    const path = `/console/callbacks/events/${eventId}`;
    const shown = await consoleGet(service, path, cookie);
    expect(shown.res.status).toBe(200);
    expect(shown.text).toContain('Delivery attempts, oldest first');
    expect(shown.text).toContain('>Redeliver</button>');
    const sent = await postFrom(cookie, path, `${path}/redeliver`);
    expect(sent.res.status).toBe(303);
    expect(sent.res.headers.get('location')).toBe(`${path}?redelivered=1`);
    await waitUntil(
      async () => receiver.deliveries.filter((d) => d.headers['webhook-id'] === eventId).length === 2,
      DEADLINE,
      'the redelivery',
    );

    const since = new Date(Date.now() - 3_600_000).toISOString().slice(0, 16);
    const recovered = await postFrom(cookie, '/console/callbacks', '/console/callbacks/recover', { since });
    expect(recovered.res.status).toBe(303);
    const progress = recovered.res.headers.get('location')!;
    expect(progress).toMatch(/^\/console\/callbacks\/recoveries\/[0-9a-f-]{36}$/);
    const recovery = await consoleGet(service, progress, cookie);
    expect(recovery.res.status).toBe(200);
    expect(recovery.text).toContain('The recovered events by delivery status now');

    const badWindow = await postFrom(cookie, '/console/callbacks', '/console/callbacks/recover', {
      since: 'soon',
    });
    expect(badWindow.res.status).toBe(400);
    expect(badWindow.text).toContain('id="cb-since-error"');
  });

  it("finds a failed callback by the partner's references, says why on its submission, the overview and the audit trail", async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    await postFrom(cookie, '/console/callbacks', '/console/callbacks/endpoint', { url: receiverUrl });
    const reference = `sub-${account.partnerId.slice(0, 8)}`;
    const subject = `subj-${account.partnerId.slice(0, 8)}`;
    receiver.replyTo = (raw) => (raw.toString('utf8').includes(reference) ? 500 : undefined);
    try {
      const accepted = await postSubmission(
        service,
        bodyFor(account, (b) => {
          b.partnerSubmissionId = reference;
          b.partnerSubjectId = subject;
        }),
        { apiKey: account.apiKey },
      );
      const submissionId = String(accepted.json.submissionId);
      const failing = await waitUntil(
        async () => {
          const r = await getJson(service, `/v1/submissions/${submissionId}`, {
            'x-api-key': account.apiKey,
          });
          return r.json.resultId ? (r.json.resultId as string) : undefined;
        },
        DEADLINE,
        'the result',
      );
      const eventId = await eventIdOf(account, failing, 'failed');
      const other = await completeSubmission(service, account);
      await eventIdOf(account, other, 'delivered');

      // The API's list filters by either reference and names both on each item.
      for (const query of [`partnerSubmissionId=${reference}`, `partnerSubjectId=${subject}`]) {
        const api = await getJson(service, `/v1/events?${query}`, { 'x-api-key': account.apiKey });
        expect(api.json.items).toEqual([
          expect.objectContaining({ eventId, partnerSubmissionId: reference, partnerSubjectId: subject }),
        ]);
      }
      const found = await consoleGet(service, `/console/callbacks?partnerSubmissionId=${reference}`, cookie);
      expect(found.text).toContain(`<a href="/console/callbacks/events/${eventId}">${reference}</a>`);
      expect(found.text.match(/\/console\/callbacks\/events\//g)).toHaveLength(1);
      expect(found.text).toContain('Exactly as you sent it');
      const none = await consoleGet(service, '/console/callbacks?partnerSubjectId=nobody', cookie);
      expect(none.text).toContain('No events match these filters.');

      const event = await consoleGet(service, `/console/callbacks/events/${eventId}`, cookie);
      expect(event.text).toContain(`<h1>Callback for ${reference}</h1>`);
      expect(event.text).toContain(
        'Failed: Your callback endpoint answered with an error status (HTTP 500), at ',
      );

      const submission = await consoleGet(service, `/console/submissions/${submissionId}`, cookie);
      expect(submission.text).toMatch(
        /Failed: every attempt failed \(failing since \d{4}-\d\d-\d\d [\d:]{8} UTC\)/,
      );
      expect(submission.text).toMatch(
        /[\d:]{8} UTC: Failed: Your callback endpoint answered with an error status \(HTTP 500\)/,
      );
      expect(submission.text).toContain('Deadline met');
      const delivered = await consoleGet(
        service,
        `/console/submissions/${(await getJson(service, `/v1/results/${other}`, { 'x-api-key': account.apiKey })).json.submissionId}`,
        cookie,
      );
      expect(delivered.text).toMatch(/Delivered at \d{4}-\d\d-\d\d [\d:]{8} UTC/);

      const overview = await consoleGet(service, '/console/', cookie);
      expect(overview.text).toContain('50.0 % (1 of 2 sent; those on their first try not counted)');
      expect(overview.text).toMatch(
        /Callbacks are going through: the last attempt, at [\d: -]+ UTC, was delivered\./,
      );

      const audit = await consoleGet(service, '/console/audit', cookie);
      expect(audit.text).toContain(
        `Your submission reference <strong>${reference}</strong>, subject reference`,
      );
    } finally {
      receiver.replyTo = undefined;
    }
  });

  it('refuses a redelivery without an endpoint in plain words', async () => {
    const account = await createAccount(service);
    const resultId = await completeSubmission(service, account);
    const eventId = await eventIdOf(account, resultId, 'failed');
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    const path = `/console/callbacks/events/${eventId}`;
    const refused = await postFrom(cookie, path, `${path}/redeliver`);
    expect(refused.res.status).toBe(409);
    expect(refused.text).toContain('No callback URL is set for this mode');
    expect(refused.text).not.toContain('WEBHOOK_NOT_CONFIGURED');
  });

  it('a read session sees no secret or change button; its forged posts and posts without CSRF are refused', async () => {
    const account = await createAccount(service);
    const manager = await signIn(service, account.apiKey, { scope: 'manage' });
    await postFrom(manager, '/console/callbacks', '/console/callbacks/endpoint', { url: receiverUrl });
    const resultId = await completeSubmission(service, account);
    const eventId = await eventIdOf(account, resultId, 'delivered');

    const reader = await signIn(service, account.apiKey, { scope: 'read' });
    const page = await consoleGet(service, '/console/callbacks', reader);
    expect(page.res.status).toBe(200);
    expect(page.text).toContain(receiverUrl);
    for (const button of ['Save the URL', 'Rotate the secret', 'Recover these events', 'Enable</button>']) {
      expect(page.text).not.toContain(button);
    }
    const eventPage = await consoleGet(service, `/console/callbacks/events/${eventId}`, reader);
    expect(eventPage.text).not.toContain('Redeliver</button>');
    const csrf = csrfOf(page.text);
    const forged: Array<[string, Record<string, string>]> = [
      ['/console/callbacks/endpoint', { url: receiverUrl }],
      ['/console/callbacks/rotate-secret', { activateIn: '0s' }],
      ['/console/callbacks/enable', {}],
      ['/console/callbacks/recover', { since: new Date().toISOString().slice(0, 16) }],
      [`/console/callbacks/events/${eventId}/redeliver`, {}],
    ];
    for (const [action, fields] of forged) {
      const res = await consolePost(service, action, reader, { _csrf: csrf, ...fields });
      expect(res.res.status, action).toBe(403);
      expect(res.text).not.toMatch(SECRET_PATTERN);
      const noToken = await consolePost(service, action, manager, fields);
      expect(noToken.res.status, action).toBe(403);
    }
    expect(((await endpointOf(account)).json as { signingSecrets: unknown[] }).signingSecrets).toHaveLength(
      1,
    );
  });

  it("sets the shown mode's endpoint: a live key's session switched to test mode sets the sandbox's", async () => {
    const account = await createAccount(service);
    const test = await testKeyFor(service, account);
    const cookie = await signIn(service, account.apiKey, { scope: 'manage' });
    const switched = await postFrom(cookie, '/console/callbacks', '/console/mode', { mode: 'test' });
    expect(switched.res.status).toBe(303);
    const set = await postFrom(cookie, '/console/callbacks', '/console/callbacks/endpoint', {
      url: receiverUrl,
    });
    expect(set.res.status).toBe(201);
    expect((await endpointOf(test)).json).toMatchObject({ mode: 'test', url: receiverUrl });
    expect((await endpointOf(account)).status).toBe(404);
    const testSession = await signIn(service, test.apiKey, { scope: 'read' });
    expect((await consoleGet(service, '/console/callbacks', testSession)).text).toContain(receiverUrl);
  });

  it("answers another account's event and recovery ids with the 404 page", async () => {
    const owner = await createAccount(service);
    const ownerCookie = await signIn(service, owner.apiKey, { scope: 'manage' });
    await postFrom(ownerCookie, '/console/callbacks', '/console/callbacks/endpoint', { url: receiverUrl });
    const resultId = await completeSubmission(service, owner);
    const eventId = await eventIdOf(owner, resultId, 'delivered');
    const recovered = await postFrom(ownerCookie, '/console/callbacks', '/console/callbacks/recover', {
      since: new Date(Date.now() - 3_600_000).toISOString().slice(0, 16),
    });
    const recoveryPath = recovered.res.headers.get('location')!;

    const other = await createAccount(service);
    const cookie = await signIn(service, other.apiKey, { scope: 'manage' });
    const eventPath = `/console/callbacks/events/${eventId}`;
    expect((await consoleGet(service, eventPath, cookie)).res.status).toBe(404);
    expect((await consoleGet(service, recoveryPath, cookie)).res.status).toBe(404);
    const redeliver = await postFrom(cookie, '/console/callbacks', `${eventPath}/redeliver`);
    expect(redeliver.res.status).toBe(404);
    expect((await consoleGet(service, '/console/callbacks', cookie)).text).not.toContain(eventId);
  });
});

describe('/console/audit search by the partner’s references', () => {
  interface Audited {
    eventId: string;
    resourceId: string;
    requestId: string;
  }

  /** A completed submission with these references, each of its resources read once (audited). */
  async function auditedSubmission(account: TestAccount, reference: string, subject: string) {
    const accepted = await postSubmission(
      service,
      bodyFor(account, (b) => {
        b.partnerSubmissionId = reference;
        b.partnerSubjectId = subject;
      }),
      { apiKey: account.apiKey },
    );
    const submissionId = String(accepted.json.submissionId);
    const headers = { 'x-api-key': account.apiKey };
    const resultId = await waitUntil(
      async () => {
        const r = await getJson(service, `/v1/submissions/${submissionId}`, headers);
        return r.json.status === 'completed' ? (r.json.resultId as string) : undefined;
      },
      DEADLINE,
      'completion',
    );
    const result = (await getJson(service, `/v1/results/${resultId}`, headers)).json as {
      artifacts: { items: Array<{ artifactId: string; access: { downloadUrl: string } | null }> };
    };
    const artifact = result.artifacts.items.find((i) => i.access);
    expect(artifact).toBeDefined();
    const link = new URL(artifact!.access!.downloadUrl);
    expect((await fetch(`${service.url}${link.pathname}${link.search}`)).status).toBe(200);
    const eventId = await waitUntil(
      async () => {
        const page = (await getJson(service, '/v1/events', headers)).json as {
          items: Array<{ eventId: string; resultId: string }>;
        };
        return page.items.find((i) => i.resultId === resultId)?.eventId;
      },
      DEADLINE,
      'the result.ready event',
    );
    expect((await getJson(service, `/v1/events/${eventId}`, headers)).status).toBe(200);
    return new Set([submissionId, resultId, artifact!.artifactId, eventId]);
  }

  /** The entries a console page lists, each as its resource id and request id. */
  function rowsOf(html: string): string[] {
    const rows = html.matchAll(
      /<tr><td>[^<]+<\/td><td>[^<]+<\/td><td>[^<]+<code>([^<]+)<\/code>[\s\S]*?<\/td><td>[\s\S]*?<\/td><td><code>([^<]+)<\/code>/g,
    );
    return [...rows].map((m) => `${m[1]} ${m[2]}`);
  }

  const shown = (items: readonly Audited[]) => items.map((e) => `${e.resourceId} ${e.requestId}`);

  it('lists the entries about the matching submission and what derives from it, on the page and in the API', async () => {
    const account = await createAccount(service);
    const cookie = await signIn(service, account.apiKey, { scope: 'read' });
    const tag = account.partnerId.slice(0, 8);
    const first = await auditedSubmission(account, `a-${tag}`, `subj-a-${tag}`);
    const second = await auditedSubmission(account, `b-${tag}`, `subj-b-${tag}`);
    const headers = { 'x-api-key': account.apiKey };
    const all = (await getJson(service, '/v1/audit-events?limit=200', headers)).json.items as Audited[];
    const about = (ids: Set<string>) => all.filter((e) => ids.has(e.resourceId));
    // Each submission has entries on all four kinds of resource: created, read, downloaded, event read.
    for (const ids of [first, second]) {
      expect(new Set(all.filter((e) => ids.has(e.resourceId)).map((e) => e.resourceId))).toEqual(ids);
    }

    for (const [query, ids] of [
      [`partnerSubmissionId=a-${tag}`, first],
      [`partnerSubjectId=subj-b-${tag}`, second],
      [`partnerSubmissionId=a-${tag}&partnerSubjectId=subj-a-${tag}`, first],
    ] as const) {
      const api = await getJson(service, `/v1/audit-events?${query}`, headers);
      expect(api.status).toBe(200);
      expect(api.json.items).toEqual(about(ids));
      const page = await consoleGet(service, `/console/audit?${query}`, cookie);
      expect(page.res.status).toBe(200);
      expect(rowsOf(page.text)).toEqual(shown(about(ids)));
    }

    // A page of one, then the next by the cursor signed over the search; another search refuses it.
    const one = await getJson(service, `/v1/audit-events?partnerSubmissionId=a-${tag}&limit=1`, headers);
    const cursor = String(one.json.nextCursor);
    const next = await getJson(
      service,
      `/v1/audit-events?partnerSubmissionId=a-${tag}&limit=1&cursor=${encodeURIComponent(cursor)}`,
      headers,
    );
    expect(next.json.items).toEqual(about(first).slice(1, 2));
    const other = await getJson(
      service,
      `/v1/audit-events?partnerSubmissionId=b-${tag}&limit=1&cursor=${encodeURIComponent(cursor)}`,
      headers,
    );
    expect(other.status).toBe(400);
    const paged = await consoleGet(service, `/console/audit?partnerSubmissionId=a-${tag}&limit=1`, cookie);
    const href = /href="(\/console\/audit\?[^"]+)" rel="next"/
      .exec(paged.text)?.[1]
      ?.replaceAll('&amp;', '&');
    expect(href).toContain(`partnerSubmissionId=a-${tag}`);
    expect(rowsOf((await consoleGet(service, href!, cookie)).text)).toEqual(shown(about(first).slice(1, 2)));

    // The form keeps its values; an unknown reference lists none.
    const none = await consoleGet(
      service,
      `/console/audit?partnerSubmissionId=nobody-${tag}&partnerSubjectId=subj-a-${tag}`,
      cookie,
    );
    expect(none.res.status).toBe(200);
    expect(none.text).toContain('No events match these filters.');
    expect(rowsOf(none.text)).toEqual([]);
    expect(none.text).toMatch(new RegExp(`id="a-partnerSubmissionId"[^>]*value="nobody-${tag}"`));
    expect(none.text).toMatch(new RegExp(`id="a-partnerSubjectId"[^>]*value="subj-a-${tag}"`));
    expect(none.text).toContain('<label for="a-partnerSubmissionId">Your submission reference</label>');
    expect(none.text).toContain('Exactly as you sent it, e.g. sub-000124');
    expect(
      (await getJson(service, `/v1/audit-events?partnerSubjectId=nobody-${tag}`, headers)).json.items,
    ).toEqual([]);
    // Another account's reference finds nothing of it.
    const stranger = await createAccount(service);
    const theirs = await getJson(service, `/v1/audit-events?partnerSubmissionId=a-${tag}`, {
      'x-api-key': stranger.apiKey,
    });
    expect(theirs.json.items).toEqual([]);

    const bad = await consoleGet(service, `/console/audit?partnerSubjectId=${'x'.repeat(513)}`, cookie);
    expect(bad.res.status).toBe(400);
    expect(bad.text).toContain('partnerSubjectId must be 1 to 512 characters.');
    expect(bad.text).toContain('Some filters are not valid; correct them and search again.');
  });
});
