import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
  tempDataDir,
} from '../helpers/service.js';

/**
 * Issue 30: the event list walked while another process's submissions complete, each recording
 * its event: every event that existed when the walk started comes exactly once, nothing twice.
 */
const WRITER = path.resolve(import.meta.dirname, '../fixtures/post-submissions.mjs');
let service: TestService;
let writer: ChildProcess | undefined;

beforeAll(async () => {
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' });
});
afterAll(async () => {
  if (writer && writer.exitCode === null && writer.signalCode === null) {
    const exited = once(writer, 'exit');
    writer.kill('SIGKILL');
    await exited;
  }
  await service?.stop();
});

interface Item {
  eventId: string;
  createdAt: string;
}

/** The account's event ids, read from the store. */
async function eventIds(account: TestAccount): Promise<string[]> {
  const rows = await service.store.driver.db
    .selectFrom('webhook_events')
    .select('id')
    .where('tenant_id', '=', account.tenantId)
    .execute();
  return rows.map((r) => r.id);
}

describe('walking the event list while events are recorded', () => {
  it('returns every event that existed at the start exactly once, and none twice', async () => {
    const account = await createAccount(service);
    for (let i = 0; i < 16; i++) {
      const res = await postSubmission(
        service,
        bodyFor(account, (b) => {
          b.partnerSubmissionId = `before-walk-${i}`;
        }),
        { apiKey: account.apiKey },
      );
      expect(res.status).toBe(202);
    }
    await waitUntil(async () => (await eventIds(account)).length >= 16, 60_000, 'the first events');

    const bodyFile = path.join(tempDataDir(), 'body.json');
    fs.writeFileSync(bodyFile, JSON.stringify(bodyFor(account)));
    writer = spawn(process.execPath, [WRITER, service.url, account.apiKey, bodyFile], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let errors = '';
    writer.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      errors += chunk;
    });
    // Events of the writer's submissions are being recorded before the walk starts.
    await waitUntil(async () => (await eventIds(account)).length >= 18, 60_000, 'the writer’s events');

    const existing = new Set(await eventIds(account));
    const walked: Item[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await getJson(service, `/v1/events${query}`, { 'x-api-key': account.apiKey });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      walked.push(...(res.json.items as Item[]));
      cursor = res.json.nextCursor as string | null;
      pages += 1;
      expect(pages).toBeLessThan(200);
      // Before the next page, another event has been recorded.
      const seen = (await eventIds(account)).length;
      await waitUntil(async () => (await eventIds(account)).length > seen || errors, 60_000, 'another event');
      expect(errors).toBe('');
    } while (cursor !== null);

    writer.kill('SIGTERM');
    const [code] = (await once(writer, 'exit')) as [number | null];
    expect(code, errors).toBe(0);
    const all = new Set(await eventIds(account));
    const ids = walked.map((i) => i.eventId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of existing)
      expect(
        ids.filter((x) => x === id),
        id,
      ).toHaveLength(1);
    for (const id of ids) expect(all.has(id), id).toBe(true);
    for (let i = 1; i < walked.length; i++) {
      const [a, b] = [walked[i - 1]!, walked[i]!];
      expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.eventId > b.eventId)).toBe(true);
    }
    // A cursor is bound to its account, mode and filters.
    const first = await getJson(service, '/v1/events?limit=1', { 'x-api-key': account.apiKey });
    const issued = encodeURIComponent(first.json.nextCursor as string);
    const other = await createAccount(service);
    for (const [key, query] of [
      [account.apiKey, `deliveryStatus=failed&cursor=${issued}`],
      [other.apiKey, `cursor=${issued}`],
    ] as const) {
      const res = await getJson(service, `/v1/events?limit=1&${query}`, { 'x-api-key': key });
      expect(res.status, query).toBe(400);
      expect(
        Object.keys((res.json.error as { details: { fieldErrors: object } }).details.fieldErrors),
      ).toEqual(['query.cursor']);
    }
    expect(pages).toBeGreaterThanOrEqual(5);
    expect(all.size - existing.size).toBeGreaterThanOrEqual(pages);
  });
});
