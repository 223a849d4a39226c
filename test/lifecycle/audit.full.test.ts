import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { cliFor, setCallback } from '../helpers/cli.js';
import { openLink, signIn } from '../helpers/console.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  errorOf,
  getJson,
  postSubmission,
  serviceWithReceiver,
  type TestAccount,
  uniqueKey,
} from '../helpers/service.js';

/** The audit trail: every action recorded once by what did it, readable per account, with no health data. */

const ctx = serviceWithReceiver();

interface Event {
  eventId: string;
  occurredAt: string;
  tenantId: string;
  action: string;
  resourceType: string;
  resourceId: string;
  actor: { type: string; id?: string; keyId?: string };
  requestId: string;
  correlationId?: string;
  outcome: string;
}

const auth = (account: TestAccount) => ({ 'x-api-key': account.apiKey });

async function allEvents(account: TestAccount): Promise<Event[]> {
  const res = await getJson(ctx.service, '/v1/audit-events?limit=200', auth(account));
  expect(res.status).toBe(200);
  return (res.json.items as Event[]) ?? [];
}

async function countsByAction(account: TestAccount): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const e of await allEvents(account)) counts[e.action] = (counts[e.action] ?? 0) + 1;
  return counts;
}

/** Runs `act` and checks it added exactly `expected` events (by action) to the account's trail. */
async function expectAudited(
  account: TestAccount,
  expected: Record<string, number>,
  act: () => Promise<unknown>,
) {
  const before = await countsByAction(account);
  await act();
  const after = await countsByAction(account);
  const added: Record<string, number> = {};
  for (const [action, n] of Object.entries(after)) {
    const delta = n - (before[action] ?? 0);
    if (delta !== 0) added[action] = delta;
  }
  expect(added).toEqual(expected);
}

describe('the audit trail', () => {
  it('records every action once, by what did it, and never health data, keys or secrets', async () => {
    const account = await createAccount(ctx.service);
    const subject = `subj-${randomUUID()}`;
    const psid = `sub-${randomUUID()}`;
    const lab = `Lab ${randomUUID()}`;
    const body = bodyFor(account, (b) => {
      b.partnerSubjectId = subject;
      b.partnerSubmissionId = psid;
      b.sourceMetadata.labName = lab;
    });
    const key = uniqueKey();
    let secret = '';
    await expectAudited(account, { 'webhook.endpoint_set': 1 }, async () => {
      secret = await setCallback(ctx.service, account.partnerId, ctx.receiverUrl);
    });
    let submissionId = '';
    await expectAudited(account, { 'submission.created': 1 }, async () => {
      const res = await postSubmission(ctx.service, body, {
        apiKey: account.apiKey,
        idempotencyKey: key,
        correlationId: 'corr-audit',
      });
      expect(res.status).toBe(202);
      submissionId = String(res.json.submissionId);
    });
    await expectAudited(account, { 'submission.replayed': 1 }, async () => {
      const res = await postSubmission(ctx.service, body, { apiKey: account.apiKey, idempotencyKey: key });
      expect(res.headers.get('idempotent-replayed')).toBe('true');
    });
    const detail = await waitUntil(
      async () => {
        const r = await getJson(ctx.service, `/v1/submissions/${submissionId}`, auth(account));
        return r.json.status === 'completed' ? r.json : undefined;
      },
      60_000,
      'completed',
    );
    const resultId = String(detail.resultId);
    await expectAudited(account, { 'submission.read': 1 }, () =>
      getJson(ctx.service, `/v1/submissions/${submissionId}`, auth(account)),
    );
    // A 404 reads nothing and records nothing.
    await expectAudited(account, {}, () =>
      getJson(ctx.service, `/v1/submissions/${randomUUID()}`, auth(account)),
    );
    let link = '';
    await expectAudited(account, { 'result.read': 1 }, async () => {
      const r = await getJson(ctx.service, `/v1/results/${resultId}`, auth(account));
      const items = (r.json.artifacts as { items: Array<{ access: { downloadUrl: string } }> }).items;
      const signed = new URL(items[0]!.access.downloadUrl);
      link = `${ctx.service.url}${signed.pathname}${signed.search}`;
    });
    await expectAudited(account, { 'artifact.downloaded': 1 }, async () => {
      expect((await fetch(link)).status).toBe(200);
    });
    await expectAudited(account, { 'webhook.secret_rotated': 1 }, async () => {
      expect(
        (await cliFor(ctx.service, ['webhooks', 'rotate-secret', '--partner', account.partnerId])).code,
      ).toBe(0);
    });
    await waitUntil(async () => ctx.receiver.deliveries.length > 0, 30_000, 'a callback');
    await expectAudited(account, { 'webhook.redelivered': 1 }, async () => {
      expect((await cliFor(ctx.service, ['webhooks', 'redeliver', '--result', resultId])).code).toBe(0);
    });
    let newKeyId = '';
    let newKey = '';
    await expectAudited(account, { 'key.created': 1 }, async () => {
      const created = await cliFor(ctx.service, ['keys', 'create', '--partner', account.partnerId]);
      newKeyId = String(created.json!.keyId);
      newKey = String(created.json!.apiKey);
    });
    await expectAudited(account, { 'key.revoked': 1 }, async () => {
      expect((await cliFor(ctx.service, ['keys', 'revoke', newKeyId])).code).toBe(0);
      // Revoking again changes nothing and records nothing more.
      expect((await cliFor(ctx.service, ['keys', 'revoke', newKeyId])).code).toBe(0);
    });
    await expectAudited(account, { 'tenant.deactivated': 1, 'tenant.activated': 1 }, async () => {
      expect((await cliFor(ctx.service, ['tenants', 'deactivate', account.tenantId])).code).toBe(0);
      expect((await cliFor(ctx.service, ['tenants', 'activate', account.tenantId])).code).toBe(0);
    });
    await expectAudited(account, { 'subject.erasure_requested': 1, 'subject.erased': 1 }, async () => {
      const res = await fetch(`${ctx.service.url}/v1/subjects/${encodeURIComponent(subject)}`, {
        method: 'DELETE',
        headers: auth(account),
      });
      const erasureId = String(((await res.json()) as { erasureId: string }).erasureId);
      await waitUntil(
        async () => {
          const r = await getJson(ctx.service, `/v1/erasures/${erasureId}`, auth(account));
          return r.json.status === 'completed';
        },
        60_000,
        'erased',
      );
    });

    const events = await allEvents(account);
    const created = events.find((e) => e.action === 'submission.created')!;
    expect(created).toMatchObject({
      tenantId: account.tenantId,
      resourceType: 'submission',
      resourceId: submissionId,
      actor: { type: 'api_key', keyId: account.keyId },
      correlationId: 'corr-audit',
      outcome: 'success',
    });
    expect(events.find((e) => e.action === 'artifact.downloaded')!.actor).toEqual({ type: 'download_link' });
    expect(events.find((e) => e.action === 'key.revoked')!.actor).toEqual({ type: 'operator' });
    expect(events.find((e) => e.action === 'subject.erased')!.actor).toEqual({ type: 'system' });
    // Newest first.
    const times = events.map((e) => e.occurredAt);
    expect([...times].sort().reverse()).toEqual(times);
    // No health data, subject reference, key or secret in any recorded field.
    const rows = await ctx.service.store.driver.db.selectFrom('audit_events').selectAll().execute();
    const text = JSON.stringify(rows);
    for (const needle of [subject, psid, lab, account.apiKey, newKey, secret, 'ALBUMIN', 'white_british']) {
      expect(text).not.toContain(needle);
    }
    // Append-only: the database refuses to change a recorded event.
    await expect(
      ctx.service.store.driver.db
        .updateTable('audit_events')
        .set({ action: 'x' })
        .where('tenant_id', '=', account.tenantId)
        .execute(),
    ).rejects.toThrow(/append-only/);
  });

  it('pages newest first with a cursor, only for the caller’s account', async () => {
    const account = await createAccount(ctx.service);
    const other = await createAccount(ctx.service);
    for (let i = 0; i < 5; i++) {
      const res = await postSubmission(ctx.service, bodyFor(account), { apiKey: account.apiKey });
      expect(res.status).toBe(202);
    }
    const whole = await allEvents(account);
    expect(whole.length).toBeGreaterThanOrEqual(6);
    const paged: Event[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=2&cursor=${encodeURIComponent(cursor)}` : '?limit=2';
      const res = await getJson(ctx.service, `/v1/audit-events${query}`, auth(account));
      expect(res.status).toBe(200);
      const items = res.json.items as Event[];
      expect(items.length).toBeLessThanOrEqual(2);
      paged.push(...items);
      cursor = res.json.nextCursor as string | null;
    } while (cursor);
    expect(paged.map((e) => e.eventId)).toEqual(whole.map((e) => e.eventId));
    expect(whole.every((e) => e.tenantId === account.tenantId)).toBe(true);
    const theirs = await allEvents(other);
    expect(theirs.some((e) => e.tenantId === account.tenantId)).toBe(false);

    for (const bad of ['?limit=0', '?limit=201', '?limit=abc', '?cursor=nope', '?cursor=W10']) {
      const res = await getJson(ctx.service, `/v1/audit-events${bad}`, auth(account));
      expect(res.status, bad).toBe(400);
      expect(errorOf(res.json).code).toBe('VALIDATION_ERROR');
    }
    expect((await getJson(ctx.service, '/v1/audit-events')).status).toBe(401);
  });

  it('refuses a cursor of another account, of another list or altered, as every list does', async () => {
    const account = await createAccount(ctx.service);
    const other = await createAccount(ctx.service);
    for (const who of [account, other, account]) {
      const res = await postSubmission(ctx.service, bodyFor(who), { apiKey: who.apiKey });
      expect(res.status).toBe(202);
    }
    const cursorOf = async (who: typeof account, path: string) => {
      const res = await getJson(ctx.service, path, auth(who));
      expect(res.status, path).toBe(200);
      const cursor = res.json.nextCursor as string | null;
      expect(cursor, path).toEqual(expect.any(String));
      return cursor as string;
    };
    const own = await cursorOf(account, '/v1/audit-events?limit=1');
    expect(
      (await getJson(ctx.service, `/v1/audit-events?cursor=${encodeURIComponent(own)}`, auth(account)))
        .status,
    ).toBe(200);
    const [body, mac] = own.split('.');
    const altered = `${Buffer.from(JSON.stringify(['2020-01-01T00:00:00.000Z', account.tenantId])).toString('base64url')}.${mac}`;
    const foreign = {
      'another account': await cursorOf(other, '/v1/audit-events?limit=1'),
      'the submissions list': await cursorOf(account, '/v1/submissions?limit=1'),
      'an altered position': altered,
      'an unsigned position': body as string,
    };
    for (const [what, cursor] of Object.entries(foreign)) {
      const res = await getJson(
        ctx.service,
        `/v1/audit-events?cursor=${encodeURIComponent(cursor)}`,
        auth(account),
      );
      expect([what, res.status]).toEqual([what, 400]);
      const error = errorOf(res.json);
      expect(error.code).toBe('VALIDATION_ERROR');
      expect(error.details).toEqual({
        formErrors: [],
        fieldErrors: { 'query.cursor': [expect.stringMatching(/^cursor is not valid here/)] },
      });
    }
    // The same refusal as the submissions list gives a cursor that is not its own.
    const theirs = await getJson(
      ctx.service,
      `/v1/submissions?cursor=${encodeURIComponent(own)}`,
      auth(account),
    );
    expect(theirs.status).toBe(400);
    expect(errorOf(theirs.json).details).toEqual(
      errorOf(
        (
          await getJson(
            ctx.service,
            `/v1/audit-events?cursor=${encodeURIComponent(foreign['another account'])}`,
            auth(account),
          )
        ).json,
      ).details,
    );
  });

  it('lists an account’s events for the operator, by action and time', async () => {
    const account = await createAccount(ctx.service);
    const res = await postSubmission(ctx.service, bodyFor(account), { apiKey: account.apiKey });
    expect(res.status).toBe(202);
    const listed = await cliFor(ctx.service, [
      'audit',
      'list',
      '--tenant',
      account.tenantId,
      '--action',
      'submission.created',
    ]);
    expect(listed.code).toBe(0);
    const events = (listed.json as { events: Event[] }).events;
    expect(events.map((e) => e.resourceId)).toEqual([String(res.json.submissionId)]);
    const future = await cliFor(ctx.service, [
      'audit',
      'list',
      '--tenant',
      account.tenantId,
      '--since',
      '2999-01-01T00:00:00Z',
    ]);
    expect((future.json as { events: Event[] }).events).toEqual([]);
    expect(
      (await cliFor(ctx.service, ['audit', 'list', '--tenant', account.tenantId, '--action', 'nope'])).code,
    ).toBe(1);
  });

  it('names a console session as the actor by its id (its own column), with the key that made it', async () => {
    const account = await createAccount(ctx.service);
    await signIn(ctx.service, account.apiKey, { scope: 'manage' });
    const made = await cliFor(ctx.service, ['console', 'link', '--partner', account.partnerId]);
    expect((await openLink(ctx.service, String(made.json?.url))).res.status).toBe(303);

    const events = await allEvents(account);
    const signIns = events.filter((e) => e.action === 'console.signed_in');
    expect(signIns).toHaveLength(2);
    const byKey = signIns.find((e) => e.actor.keyId !== undefined);
    const byOperator = signIns.find((e) => e.actor.keyId === undefined);
    expect(byKey!.actor).toEqual({ type: 'console_session', id: byKey!.resourceId, keyId: account.keyId });
    // An operator's link: no key made the session.
    expect(byOperator!.actor).toEqual({ type: 'console_session', id: byOperator!.resourceId });
    expect(byKey!.correlationId).toBeUndefined();
    // Only a session is named by an actor id.
    const created = events.find((e) => e.action === 'console.link_created' && e.actor.type === 'api_key');
    expect(created!.actor).toEqual({ type: 'api_key', keyId: account.keyId });

    const row = await ctx.service.store.driver.db
      .selectFrom('audit_events')
      .select(['actor_type', 'actor_id', 'actor_key_id', 'correlation_id'])
      .where('id', '=', byKey!.eventId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      actor_type: 'console_session',
      actor_id: byKey!.resourceId,
      actor_key_id: account.keyId,
      correlation_id: null,
    });

    const listed = await cliFor(ctx.service, [
      'audit',
      'list',
      '--tenant',
      account.tenantId,
      '--action',
      'console.signed_in',
    ]);
    const listedActors = (listed.json as { events: Event[] }).events.map((e) => e.actor);
    expect(listedActors).toHaveLength(2);
    expect(listedActors).toEqual(expect.arrayContaining([byOperator!.actor, byKey!.actor]));
  });
});
