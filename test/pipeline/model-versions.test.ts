import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODEL_VERSION, type ModelResult } from '../../src/domain/model/types.js';
import { resultSchema } from '../../src/http/result-body.js';
import type { Worker } from '../../src/queue/worker.js';
import { loseStoredBytes } from '../helpers/artifact-bytes.js';
import { startPipelineWorker, waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers/service.js';

/**
 * Model 1.1 beside a result the 1.0.0 service stored (model-v1.1 §2): the worker stores the 1.0.0
 * bundle of test/fixtures/model-1.0.0 for one submission, as the service before the upgrade did,
 * and the upgraded service reads it, exports it and renders its artifacts again without rescoring.
 */
const stored = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../fixtures/model-1.0.0/source.json'), 'utf8'),
) as { bundle: string };
const OLD_BUNDLE = JSON.parse(stored.bundle) as ModelResult;

let service: TestService;
let worker: Worker;
let account: TestAccount;
const scoredBefore = new Set<string>();

beforeAll(async () => {
  service = await startTestService({ WORKER_CONCURRENCY: '0', RATE_LIMIT_PER_MINUTE: '0' });
  account = await createAccount(service);
  // The score step of a service from before the upgrade, for the submissions the test names: its
  // result is created with the 1.0.0 bundle, so the real step's own write finds it and keeps it.
  worker = startPipelineWorker(service, (defs) => ({
    'pipeline.score': {
      ...defs['pipeline.score'],
      async run(job, ctx) {
        const write = await defs['pipeline.score'].run(job, ctx);
        if (!job.submissionId || !scoredBefore.has(job.submissionId)) return write;
        const { tenantId, submissionId } = job;
        return async (trx, completion) => {
          const artifactTypes = ['json', 'html', 'pdf'] as const;
          await service.store.system.results.createOnce(
            trx,
            { tenantId, submissionId, bundle: OLD_BUNDLE, artifactTypes },
            ctx.clock(),
          );
          await write(trx, completion);
        };
      },
    },
  }));
});
afterAll(async () => {
  await worker?.stop();
  await service?.stop();
});

const headers = () => ({ 'x-api-key': account.apiKey });

async function submit(before: boolean): Promise<string> {
  const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
  expect(res.status).toBe(202);
  const id = String(res.json.submissionId);
  if (before) scoredBefore.add(id);
  return id;
}

async function completed(id: string): Promise<string> {
  return waitUntil(
    async () => {
      const r = await getJson(service, `/v1/submissions/${id}`, headers());
      return r.json.status === 'completed' && String(r.json.resultId);
    },
    30_000,
    'completion',
  );
}

async function download(url: string): Promise<Buffer> {
  const u = new URL(url);
  const r = await fetch(`${service.url}${u.pathname}${u.search}`);
  expect(r.status).toBe(200);
  return Buffer.from(await r.arrayBuffer());
}

describe('results of two model versions in one store', () => {
  it('reads, exports and renders a 1.0.0 result as 1.0.0, and a new one as the current version', async () => {
    // Submitted before the worker could claim either: the set is filled first.
    const oldId = await submit(true);
    const newId = await submit(false);
    const [oldResult, newResult] = [await completed(oldId), await completed(newId)];

    const memoryOf = async (resultId: string) => {
      const res = resultSchema.parse((await getJson(service, `/v1/results/${resultId}`, headers())).json);
      return { res, memory: (res.outcomes ?? []).find((o) => o.outcomeId === 'wellbeing.cognitive')! };
    };
    const old = await memoryOf(oldResult);
    const oldOutcome = OLD_BUNDLE.outcomes.find((o) => o.outcomeId === 'wellbeing.cognitive')!;
    expect(old.memory.score).toBe(oldOutcome.score);
    expect(old.memory.notices?.map((n) => n.message)).toEqual(oldOutcome.notices);
    expect(old.memory.notices?.map((n) => n.message).join(' ')).toMatch(/looks 14 years ahead/);
    const current = await memoryOf(newResult);
    expect(current.memory.notices?.map((n) => n.message).join(' ')).toMatch(/This 10-year figure is read/);

    const fhirMethod = async (resultId: string) => {
      const r = await getJson(service, `/v1/results/${resultId}/fhir`, headers());
      const entries = (r.json.entry as Array<{ resource: Record<string, unknown> }>).map((e) => e.resource);
      const memory = entries.find(
        (e) =>
          e.resourceType === 'RiskAssessment' &&
          String((e.code as { text?: string })?.text).startsWith('Memory'),
      ) as { method: { text: string }; prediction: Array<{ whenRange: { high: { value: number } } }> };
      return { text: memory.method.text, years: memory.prediction[0]!.whenRange.high.value };
    };
    expect(await fhirMethod(oldResult)).toMatchObject({ years: 14, text: expect.stringMatching(/1\.0\.0$/) });
    expect(await fhirMethod(newResult)).toMatchObject({
      years: 10,
      text: expect.stringMatching(new RegExp(`${MODEL_VERSION.replaceAll('.', '\\.')}$`)),
    });

    // The stored bytes lost, the artifacts are rendered again from the 1.0.0 result: the same bytes.
    for (const item of old.res.artifacts.items) {
      const original = await download(item.access!.downloadUrl);
      const text = original.toString('utf8');
      if (item.type === 'html') expect(text).toContain('healthspan-wellbeing 1.0.0');
      if (item.type === 'json')
        expect(JSON.parse(text).model).toEqual({ name: 'healthspan-wellbeing', version: '1.0.0' });
      if (item.type === 'json') expect(text).toContain('looks 14 years ahead');
      await loseStoredBytes(service, item.artifactId);
      expect((await download(item.access!.downloadUrl)).equals(original), item.type).toBe(true);
    }
  });
});
