import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resultSchema } from '../../src/http/result-body.js';
import { completeSubmission, waitUntil } from '../helpers/pipeline.js';
import { TestS3Server } from '../helpers/s3.js';
import {
  bodyFor,
  createAccount,
  errorOf,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers/service.js';

/**
 * The object store stopped in the middle of a run and started again, on the store under test:
 * ingest goes on, the render step retries past JOB_MAX_ATTEMPTS without failing a submission,
 * downloads answer 503 with Retry-After, and once the store is back everything completes.
 */

let s3: TestS3Server;
let service: TestService;
let account: TestAccount;

beforeAll(async () => {
  s3 = await TestS3Server.start();
  service = await startTestService({
    RATE_LIMIT_PER_MINUTE: '0',
    JOB_MAX_ATTEMPTS: '2',
    JOB_RETRY_BASE_MS: '50',
    ...s3.env('faults'),
  });
  account = await createAccount(service);
});

afterAll(async () => {
  await service?.stop();
  await s3?.close();
});

const auth = () => ({ 'x-api-key': account.apiKey });

async function detail(submissionId: string) {
  return (await getJson(service, `/v1/submissions/${submissionId}`, auth())).json as {
    status: string;
    resultId?: string;
    jobs: Array<{ type: string; attempts: number; status: string }>;
  };
}

async function downloadUrls(resultId: string): Promise<string[]> {
  const res = await getJson(service, `/v1/results/${resultId}`, auth());
  return resultSchema.parse(res.json).artifacts.items.map((i) => {
    const url = new URL(i.access!.downloadUrl);
    return `${service.url}${url.pathname}${url.search}`;
  });
}

describe('the object store stopped mid-run and started again', () => {
  it('keeps ingest going, retries the render step past its attempts, answers downloads 503, then completes everything', async () => {
    const [before] = await downloadUrls(await completeSubmission(service, account));
    expect((await fetch(before!)).status).toBe(200);

    await s3.stop();
    const refused = await fetch(before!);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(errorOf((await refused.json()) as Record<string, unknown>).code).toBe('SERVICE_UNAVAILABLE');

    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
      expect(res.status).toBe(202);
      ids.push(String(res.json.submissionId));
    }
    // Past JOB_MAX_ATTEMPTS (2) and still not failed: the step waits for the store.
    const waiting = await waitUntil(
      async () => {
        const d = await detail(ids[0]!);
        const render = d.jobs.find((j) => j.type === 'pipeline.render_reports');
        return render && render.attempts > 2 ? d : undefined;
      },
      60_000,
      'the render step retried past its attempts',
    );
    expect(waiting.status).not.toBe('completed');
    expect(waiting.status).not.toBe('failed');

    await s3.start();
    for (const id of ids) {
      const done = await waitUntil(
        async () => {
          const d = await detail(id);
          expect(d.status).not.toBe('failed');
          return d.status === 'completed' ? d : undefined;
        },
        90_000,
        `submission ${id} completed once the store is back`,
      );
      const urls = await downloadUrls(done.resultId!);
      expect(urls).toHaveLength(3);
      for (const url of urls) expect((await fetch(url)).status).toBe(200);
    }
    expect((await fetch(before!)).status).toBe(200);
  });
});
