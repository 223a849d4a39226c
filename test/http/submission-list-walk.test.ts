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
  type TestService,
  tempDataDir,
} from '../helpers/service.js';

/**
 * Issue 30: "no duplicates and no gaps while new submissions arrive during the walk". Another
 * process submits to the same service over HTTP all through a walk of small pages; the walk must
 * return every submission that existed when it started exactly once, and nothing twice.
 */
const WRITER = path.resolve(import.meta.dirname, '../fixtures/post-submissions.mjs');
let service: TestService;
let writer: ChildProcess | undefined;

beforeAll(async () => {
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' });
});
afterAll(async () => {
  // A failed test leaves the writer running: it is stopped before the service.
  if (writer && writer.exitCode === null && writer.signalCode === null) {
    const exited = once(writer, 'exit');
    writer.kill('SIGKILL');
    await exited;
  }
  await service?.stop();
});

interface Item {
  submissionId: string;
  receivedAt: string;
}

describe('walking the submission list while another process submits', () => {
  it('returns every submission that existed at the start exactly once, and none twice', async () => {
    const account = await createAccount(service);
    const before: string[] = [];
    for (let i = 0; i < 24; i++) {
      const res = await postSubmission(
        service,
        bodyFor(account, (b) => {
          b.partnerSubmissionId = `before-walk-${i}`;
        }),
        { apiKey: account.apiKey },
      );
      expect(res.status).toBe(202);
      before.push(res.json.submissionId as string);
    }

    const bodyFile = path.join(tempDataDir(), 'body.json');
    fs.writeFileSync(bodyFile, JSON.stringify(bodyFor(account)));
    writer = spawn(process.execPath, [WRITER, service.url, account.apiKey, bodyFile], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let written = '';
    let errors = '';
    writer.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      written += chunk;
    });
    writer.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      errors += chunk;
    });
    const writtenIds = () => written.split('\n').filter(Boolean);
    // The writer is under way before the walk starts.
    await waitUntil(async () => writtenIds().length >= 2, 30_000, 'the writer to submit');

    const existing = new Set([...before, ...writtenIds()]);
    const walked: Item[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?limit=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const res = await getJson(service, `/v1/submissions${query}`, { 'x-api-key': account.apiKey });
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      walked.push(...(res.json.items as Item[]));
      cursor = res.json.nextCursor as string | null;
      pages += 1;
      expect(pages).toBeLessThan(200);
      // Before the next page, the other process has added at least one more submission.
      const seen = writtenIds().length;
      await waitUntil(async () => writtenIds().length > seen || errors, 30_000, 'the writer to submit again');
      expect(errors).toBe('');
    } while (cursor !== null);

    writer.kill('SIGTERM');
    const [code] = (await once(writer, 'exit')) as [number | null];
    expect(code, errors).toBe(0);
    const all = new Set([...before, ...writtenIds()]);
    const ids = walked.map((i) => i.submissionId);

    // Nothing twice; everything that existed at the start once; nothing that was never submitted.
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of existing)
      expect(
        ids.filter((x) => x === id),
        id,
      ).toHaveLength(1);
    for (const id of ids) expect(all.has(id), id).toBe(true);
    // Newest first throughout, and the walk really did race the writer.
    for (let i = 1; i < walked.length; i++) {
      const [a, b] = [walked[i - 1]!, walked[i]!];
      expect(
        a.receivedAt > b.receivedAt || (a.receivedAt === b.receivedAt && a.submissionId > b.submissionId),
      ).toBe(true);
    }
    expect(pages).toBeGreaterThanOrEqual(6);
    expect(all.size - existing.size).toBeGreaterThanOrEqual(pages);
  });
});
