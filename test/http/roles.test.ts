import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  startTestService,
  type TestService,
} from '../helpers/service.js';

/** `serve --role api` and `--role worker` on one store: the API accepts, the worker processes. */
describe('api and worker roles', () => {
  let api: TestService;
  let worker: TestService | undefined;

  beforeAll(async () => {
    api = await startTestService({}, 'api');
  });
  afterAll(async () => {
    await worker?.stop();
    await api.stop();
  });

  it('an api process accepts but runs no jobs; a worker process on the same store completes them', async () => {
    expect(api.worker).toBeUndefined();
    const ready = await getJson(api, '/ready');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready', checks: { database: 'ok' } });

    const account = await createAccount(api);
    const res = await postSubmission(api, bodyFor(account), { apiKey: account.apiKey });
    expect(res.status).toBe(202);
    const id = res.json.submissionId as string;
    // Nothing in the api process claims it.
    const detail = await getJson(api, `/v1/submissions/${id}`, { 'x-api-key': account.apiKey });
    expect(detail.json.status).toBe('received');

    worker = await startTestService(
      {
        DATA_DIR: api.config.dataDir,
        ...(api.config.databaseUrl ? { DATABASE_URL: api.config.databaseUrl } : {}),
      },
      'worker',
    );
    const workerReady = await getJson(worker, '/ready');
    expect(workerReady.status).toBe(200);
    expect(workerReady.json).toEqual({ status: 'ready', checks: { database: 'ok', queue: 'ok' } });
    expect((await getJson(worker, '/health')).status).toBe(200);
    // A worker serves no partner routes.
    const partnerRoute = await getJson(worker, `/v1/submissions/${id}`, { 'x-api-key': account.apiKey });
    expect(partnerRoute.status).toBe(404);

    await waitUntil(
      async () => {
        const r = await getJson(api, `/v1/submissions/${id}`, { 'x-api-key': account.apiKey });
        return r.json.status === 'completed';
      },
      30_000,
      'the worker to complete the submission',
    );
  });
});
