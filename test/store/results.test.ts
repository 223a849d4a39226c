import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ModelResult } from '../../src/domain/model/types.js';
import { artifactIdFor, resultIdFor } from '../../src/store/ids.js';
import type { Store } from '../../src/store/index.js';
import { ingestCommand, openTestStore } from '../helpers/store.js';

let store: Store;
let tenantId: string;
let submissionId: string;

const bundle = { outcomes: [{ id: 'wellbeing.general', risk: 0.12 }] } as unknown as ModelResult;

beforeEach(async () => {
  store = await openTestStore();
  tenantId = (await store.system.accounts.createTenant('T')).tenantId;
  const partnerId = (await store.system.accounts.createPartner(tenantId, 'P')).partnerId;
  const outcome = await store.system.ingest.ingest(ingestCommand({ tenantId, partnerId }));
  if (outcome.kind !== 'created') throw new Error('the submission was not created');
  submissionId = outcome.submissionId;
});
afterEach(async () => {
  await store.close();
});

const write = <T>(work: Parameters<Store['system']['batcher']['submit']>[0]) =>
  store.system.batcher.submit(work) as Promise<T>;

describe('results and artifacts (the pipeline write paths)', () => {
  it('creates a result with its pending artifacts once, however often the step runs', async () => {
    const input = { tenantId, submissionId, bundle, artifactTypes: ['json', 'html', 'pdf'] as const };
    const first = await write<{ resultId: string; created: boolean }>((trx) =>
      store.system.results.createOnce(trx, input, new Date('2026-11-21T10:00:00Z')),
    );
    const again = await write<{ resultId: string; created: boolean }>((trx) =>
      store.system.results.createOnce(trx, input, new Date('2026-11-21T10:00:01Z')),
    );
    expect(first).toEqual({ resultId: resultIdFor(submissionId), created: true });
    expect(again).toEqual({ resultId: first.resultId, created: false });

    const result = await store.system.results.forSubmission(store.driver.db, submissionId);
    expect(result?.resultId).toBe(first.resultId);
    expect(JSON.parse(result!.bundleJson)).toEqual(bundle);
    expect(result!.artifacts.map((a) => [a.type, a.availability, a.artifactId])).toEqual(
      ['html', 'json', 'pdf'].map((type) => [type, 'pending', artifactIdFor(first.resultId, type)]),
    );
  });

  it('reads a result without artifacts as one with none', async () => {
    await write((trx) =>
      store.system.results.createOnce(trx, { tenantId, submissionId, bundle, artifactTypes: [] }, new Date()),
    );
    const result = await store.system.results.forSubmission(store.driver.db, submissionId);
    expect(result?.artifacts).toEqual([]);
    expect(
      await store.system.results.forSubmission(store.driver.db, '00000000-0000-4000-8000-000000000000'),
    ).toBe(undefined);
  });

  it('stores several artifacts bytes and marks them available in one completion, leaving the rest pending', async () => {
    const created = new Date('2026-11-21T10:00:00Z');
    const done = new Date('2026-11-21T10:00:05Z');
    const { resultId } = await write<{ resultId: string }>((trx) =>
      store.system.results.createOnce(
        trx,
        { tenantId, submissionId, bundle, artifactTypes: ['json', 'html', 'pdf'] },
        created,
      ),
    );
    const rendered = (['json', 'pdf'] as const).map((type, i) => ({
      artifactId: artifactIdFor(resultId, type),
      body: Buffer.from(`${type} bytes ${i}`),
      byteSize: `${type} bytes ${i}`.length,
      contentType: type === 'pdf' ? 'application/pdf' : 'application/json',
      fileName: `wellbeing-report-ps.${type}`,
      sha256: `${i}`.repeat(64),
    }));
    await write(async (trx) => {
      await store.system.results.storeAvailable(trx, resultId, rendered, done, true);
    });

    const result = await store.system.results.forSubmission(store.driver.db, submissionId);
    expect(
      result!.artifacts.map((a) => ({ type: a.type, availability: a.availability, size: a.byteSize })),
    ).toEqual([
      { type: 'html', availability: 'pending', size: null },
      { type: 'json', availability: 'available', size: rendered[0]!.byteSize },
      { type: 'pdf', availability: 'available', size: rendered[1]!.byteSize },
    ]);
    for (const r of rendered) {
      expect(await store.system.artifacts.get(r.artifactId)).toEqual(r.body);
      const download = await store.forTenant(tenantId).artifacts.downloadable(r.artifactId);
      expect(download).toEqual({
        artifactId: r.artifactId,
        contentType: r.contentType,
        fileName: r.fileName,
        byteSize: r.byteSize,
        sha256: r.sha256,
        tenantActive: true,
        read: expect.any(Function),
        directLink: expect.any(Function),
      });
      expect(await download!.read()).toEqual(r.body);
      // Another account's access does not find it.
      expect(await store.forTenant(crypto.randomUUID()).artifacts.downloadable(r.artifactId)).toBeUndefined();
    }
    const row = await store.driver.db
      .selectFrom('results')
      .select('updated_at')
      .where('id', '=', resultId)
      .executeTakeFirstOrThrow();
    expect(new Date(row.updated_at as string).toISOString()).toBe(done.toISOString());

    // Written again (restored after a re-render): the bytes are replaced.
    await store.system.artifacts.restore(rendered[0]!.artifactId, Buffer.from('again'));
    expect(await store.system.artifacts.get(rendered[0]!.artifactId)).toEqual(Buffer.from('again'));
  });
});
