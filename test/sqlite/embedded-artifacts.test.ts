import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { resultSchema } from '../../src/http/result-body.js';
import { Cleaner, ORPHAN_GRACE_MS } from '../../src/queue/maintenance/cleaner.js';
import { eraseSubject } from '../helpers/backup-drill.js';
import { findInFiles, storeFiles } from '../helpers/byte-scan.js';
import { runCli } from '../helpers/cli.js';
import { completeTagged, waitUntil } from '../helpers/pipeline.js';
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
 * EMBEDDED_ARTIFACTS=files: the embedded store's report bytes in files outside healthspan.sqlite
 * (measured slower than the default, kept for a smaller database and backups;
 * docs/object-storage.md). It keeps the object store's guarantees: bytes written before the
 * commit, lost or altered ones rendered again, erasure and retention delete them (none of an
 * erased subject's strings is left in their files), the cleaner sweeps orphans, a restored
 * backup serves every report (rendered again where the bytes are not there), and files left by
 * a switch back to the default are removed.
 */

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function complete(service: TestService, account: TestAccount, tag: string) {
  const { submissionId, resultId } = await completeTagged(service, account, tag);
  const res = await getJson(service, `/v1/results/${resultId}`, { 'x-api-key': account.apiKey });
  return { submissionId, items: resultSchema.parse(res.json).artifacts.items };
}

async function download(service: TestService, downloadUrl: string) {
  const url = new URL(downloadUrl);
  const r = await fetch(`${service.url}${url.pathname}${url.search}`);
  return { status: r.status, body: Buffer.from(await r.arrayBuffer()) };
}

async function recordedSha(service: TestService, artifactId: string): Promise<string> {
  const row = await service.store.driver.db
    .selectFrom('artifacts')
    .select('sha256')
    .where('id', '=', artifactId)
    .executeTakeFirstOrThrow();
  return row.sha256!;
}

/** The files that hold report bytes apart from healthspan.sqlite. */
function reportFiles(dataDir: string): string[] {
  return storeFiles(dataDir).filter((f) => !path.basename(f).startsWith('healthspan.sqlite'));
}

describe('EMBEDDED_ARTIFACTS=files', () => {
  let service: TestService;
  let account: TestAccount;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = tempDataDir();
    service = await startTestService({
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '0',
      EMBEDDED_ARTIFACTS: 'files',
    });
    account = await createAccount(service);
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('keeps the bytes outside the database, serves them checked, and renders lost or altered ones again', async () => {
    const { items } = await complete(service, account, randomUUID());
    expect(items.map((i) => i.availability)).toEqual(['available', 'available', 'available']);
    const contents = await service.store.driver.db
      .selectFrom('artifact_contents')
      .select('artifact_id')
      .where(
        'artifact_id',
        'in',
        items.map((i) => i.artifactId),
      )
      .execute();
    expect(contents).toEqual([]);
    expect(reportFiles(dataDir).length).toBeGreaterThan(0);
    const bytes = service.store.system.artifacts;
    for (const item of items) {
      const got = await download(service, item.access!.downloadUrl);
      expect(got.status).toBe(200);
      expect(sha256(got.body)).toBe(await recordedSha(service, item.artifactId));
      if (item.type === 'pdf') await bytes.delete([item.artifactId]);
      else await bytes.restore(item.artifactId, Buffer.from('tampered'));
      const again = await download(service, item.access!.downloadUrl);
      expect(again.status).toBe(200);
      expect(again.body.equals(got.body)).toBe(true);
      expect((await bytes.get(item.artifactId))?.equals(got.body)).toBe(true);
    }
  });

  it('deletes an erased subject’s bytes: none of its strings is left in the report files', async () => {
    const tag = randomUUID().replace(/-/g, '');
    const kept = randomUUID().replace(/-/g, '');
    await complete(service, account, tag);
    await complete(service, account, kept);
    // The JSON and HTML reports carry the partner's reference: the scan can find it.
    expect(findInFiles(reportFiles(dataDir), [`sub-${tag}`]).length).toBeGreaterThan(0);
    await eraseSubject(service, account, `subj-${tag}`);
    expect(findInFiles(storeFiles(dataDir), [`sub-${tag}`, `subj-${tag}`])).toEqual([]);
    expect(findInFiles(reportFiles(dataDir), [`sub-${kept}`]).length).toBeGreaterThan(0);
  });

  it('deletes the bytes of submissions past retention, and the cleaner sweeps orphans after the grace', async () => {
    const { items } = await complete(service, account, randomUUID());
    const bytes = service.store.system.artifacts;
    const orphan = randomUUID();
    await bytes.restore(orphan, Buffer.from('never committed'));
    const within = new Cleaner({ store: service.store.system, clock: () => new Date() });
    expect((await within.runOnce()).orphanObjects).toBe(0);
    expect(await bytes.get(orphan)).toBeDefined();

    const later = new Cleaner({
      store: service.store.system,
      clock: () => new Date(Date.now() + ORPHAN_GRACE_MS + 60_000),
    });
    expect((await later.runOnce()).orphanObjects).toBe(1);
    expect(await bytes.get(orphan)).toBeUndefined();
    expect(await bytes.get(items[0]!.artifactId)).toBeDefined();

    const expired = new Cleaner({
      store: service.store.system,
      clock: () => new Date(Date.now() + 40 * 86_400_000),
      retentionDays: 30,
    });
    expect((await expired.runOnce()).expiredSubmissions).toBeGreaterThan(0);
    for (const item of items) expect(await bytes.get(item.artifactId)).toBeUndefined();
  });
});

describe('a backup of a store with EMBEDDED_ARTIFACTS=files, restored elsewhere', () => {
  it('serves every report of the restored copy, rendered again from its result and checked', async () => {
    const dataDir = tempDataDir();
    const env = { DATA_DIR: dataDir, EMBEDDED_ARTIFACTS: 'files' };
    const first = await startTestService({ ...env, RATE_LIMIT_PER_MINUTE: '0' });
    const copy = path.join(tempDataDir(), 'copy.sqlite');
    let account: TestAccount;
    let items: Awaited<ReturnType<typeof complete>>['items'];
    try {
      account = await createAccount(first);
      ({ items } = await complete(first, account, randomUUID()));
      const created = await runCli(env, ['backup', 'create', '--to', copy]);
      expect(created.code).toBe(0);
    } finally {
      await first.stop();
    }
    // A new machine: the backup holds the database only, never the report files.
    const restoredDir = tempDataDir();
    // Its secrets and the ledger are kept apart from backups and brought along (docs/backup.md).
    for (const kept of ['secrets', 'erasure-ledger.jsonl']) {
      const from = path.join(dataDir, kept);
      if (fs.existsSync(from)) fs.cpSync(from, path.join(restoredDir, kept), { recursive: true });
    }
    const restoredEnv = { DATA_DIR: restoredDir, EMBEDDED_ARTIFACTS: 'files' };
    const restored = await runCli(restoredEnv, ['backup', 'restore', copy]);
    expect(restored.code).toBe(0);
    expect(fs.existsSync(path.join(restoredDir, 'artifacts'))).toBe(false);
    const second = await startTestService({ ...restoredEnv, RATE_LIMIT_PER_MINUTE: '0' });
    try {
      for (const item of items) {
        const got = await download(second, item.access!.downloadUrl);
        expect(got.status).toBe(200);
        expect(sha256(got.body)).toBe(await recordedSha(second, item.artifactId));
        expect(await second.store.system.artifacts.get(item.artifactId)).toBeDefined();
      }
    } finally {
      await second.stop();
    }
  });
});

describe('EMBEDDED_ARTIFACTS=files on a file system that refuses, mid-run', () => {
  it('retries the render step past its attempts, answers downloads 503, then completes everything', async () => {
    const dataDir = tempDataDir();
    const service = await startTestService({
      DATA_DIR: dataDir,
      RATE_LIMIT_PER_MINUTE: '0',
      EMBEDDED_ARTIFACTS: 'files',
      JOB_MAX_ATTEMPTS: '2',
      JOB_RETRY_BASE_MS: '50',
    });
    const folder = path.join(dataDir, 'artifacts');
    try {
      const account = await createAccount(service);
      const before = await complete(service, account, randomUUID());
      // A plain file where the folder was: every write and read under it fails with ENOTDIR.
      fs.renameSync(folder, `${folder}.away`);
      fs.writeFileSync(folder, 'not a folder');
      const refused = await download(service, before.items[0]!.access!.downloadUrl);
      expect(refused.status).toBe(503);

      const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
      expect(res.status).toBe(202);
      const id = String(res.json.submissionId);
      const detail = async () =>
        (await getJson(service, `/v1/submissions/${id}`, { 'x-api-key': account.apiKey })).json as {
          status: string;
          jobs: Array<{ type: string; attempts: number }>;
        };
      await waitUntil(
        async () => {
          const d = await detail();
          expect(d.status).not.toBe('failed');
          return (d.jobs.find((j) => j.type === 'pipeline.render_reports')?.attempts ?? 0) > 2
            ? d
            : undefined;
        },
        60_000,
        'the render step retried past its attempts',
      );

      fs.rmSync(folder);
      fs.renameSync(`${folder}.away`, folder);
      await waitUntil(
        async () => {
          const d = await detail();
          expect(d.status).not.toBe('failed');
          return d.status === 'completed' ? d : undefined;
        },
        60_000,
        'completed once the files can be written',
      );
      expect((await download(service, before.items[0]!.access!.downloadUrl)).status).toBe(200);
    } finally {
      await service.stop();
    }
  });
});

describe('switching from EMBEDDED_ARTIFACTS=files back to the default', () => {
  it('removes the files left behind, and serves every report again from the database', async () => {
    const dataDir = tempDataDir();
    const first = await startTestService({ DATA_DIR: dataDir, EMBEDDED_ARTIFACTS: 'files' });
    let account: TestAccount;
    let items: Awaited<ReturnType<typeof complete>>['items'];
    try {
      account = await createAccount(first);
      ({ items } = await complete(first, account, randomUUID()));
    } finally {
      await first.stop();
    }
    expect(reportFiles(dataDir).length).toBe(3);
    // Nothing reads them now, and an erasure could not reach them: the cleaner's first pass removes them.
    const second = await startTestService({ DATA_DIR: dataDir });
    try {
      await waitUntil(
        async () => (fs.existsSync(path.join(dataDir, 'artifacts')) ? undefined : true),
        30_000,
        'the left report files removed',
      );
      expect(reportFiles(dataDir)).toEqual([]);
      for (const item of items) {
        const got = await download(second, item.access!.downloadUrl);
        expect(got.status).toBe(200);
        expect(sha256(got.body)).toBe(await recordedSha(second, item.artifactId));
        expect(await second.store.system.artifacts.get(item.artifactId)).toEqual(got.body);
      }
    } finally {
      await second.stop();
    }
  });
});

it('refuses EMBEDDED_ARTIFACTS other than database beside DATABASE_URL, in one sentence', () => {
  expect(() => loadConfig({ DATABASE_URL: 'postgres://127.0.0.1/x', EMBEDDED_ARTIFACTS: 'files' })).toThrow(
    ConfigError,
  );
  expect(() => loadConfig({ EMBEDDED_ARTIFACTS: 'disk' })).toThrow(/EMBEDDED_ARTIFACTS/);
  expect(() => loadConfig({ EMBEDDED_ARTIFACTS: 'sqlite' })).toThrow(/EMBEDDED_ARTIFACTS/);
});
