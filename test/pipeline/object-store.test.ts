import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { resultSchema } from '../../src/http/result-body.js';
import { Cleaner, ORPHAN_GRACE_MS } from '../../src/queue/maintenance/cleaner.js';
import type { S3ArtifactStore } from '../../src/store/object-store/s3-artifact-store.js';
import { eraseSubject } from '../helpers/backup-drill.js';
import { completeSubmission, completeTagged, waitUntil } from '../helpers/pipeline.js';
import { freePort } from '../helpers/processes.js';
import { TEST_BUCKET, TestS3Server } from '../helpers/s3.js';
import {
  createAccount,
  getJson,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers/service.js';

/**
 * Report bytes in an S3-compatible object store (ARTIFACT_STORE=s3://…), end to end on the store
 * under test against s3rver with the fixture's signature check on (every request, and the
 * presigned URLs, must be signed with the secret): the objects, the database's rows without
 * bytes, re-rendering of a lost or altered object, erasure of the objects, and the start refused
 * for a bad setting.
 */

const PREFIX = 'reports/v1';
let s3: TestS3Server;
let service: TestService;
let account: TestAccount;

beforeAll(async () => {
  s3 = await TestS3Server.start(undefined, { secret: 'object-store-test-secret' });
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0', ...s3.env(PREFIX) });
  account = await createAccount(service);
});

afterAll(async () => {
  await service?.stop();
  await s3?.close();
});

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function artifactsOf(resultId: string) {
  const res = await getJson(service, `/v1/results/${resultId}`, { 'x-api-key': account.apiKey });
  expect(res.status).toBe(200);
  return resultSchema.parse(res.json).artifacts.items;
}

async function download(downloadUrl: string): Promise<{ status: number; body: Buffer; headers: Headers }> {
  const url = new URL(downloadUrl);
  const r = await fetch(`${service.url}${url.pathname}${url.search}`);
  return { status: r.status, body: Buffer.from(await r.arrayBuffer()), headers: r.headers };
}

function objectPath(artifactId: string): string {
  return path.join(s3.directory, TEST_BUCKET, PREFIX, `${artifactId}._S3rver_object`);
}

async function recordedSha(artifactId: string): Promise<string> {
  return recordedShaIn(service, artifactId);
}

async function recordedShaIn(on: TestService, artifactId: string): Promise<string> {
  const row = await on.store.driver.db
    .selectFrom('artifacts')
    .select('sha256')
    .where('id', '=', artifactId)
    .executeTakeFirstOrThrow();
  return row.sha256!;
}

describe('report bytes in an S3-compatible object store', () => {
  it('writes one object per report under the prefix, keeps the rows (size, sha256) and no bytes in the database', async () => {
    const resultId = await completeSubmission(service, account);
    const items = await artifactsOf(resultId);
    expect(items.map((i) => i.availability)).toEqual(['available', 'available', 'available']);
    for (const item of items) {
      const got = await download(item.access!.downloadUrl);
      expect(got.status).toBe(200);
      const stored = fs.readFileSync(objectPath(item.artifactId));
      expect(stored.equals(got.body)).toBe(true);
      expect(sha256(stored)).toBe(await recordedSha(item.artifactId));
    }
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

    // The start line says where the bytes go, never the credentials.
    const start = service.logs
      .flatMap((l) => l.split('\n'))
      .filter((l) => l.includes('healthspan listening'))
      .map((l) => JSON.parse(l) as Record<string, unknown>)[0];
    expect(start?.artifacts).toEqual({
      store: `s3://${TEST_BUCKET}/${PREFIX}/`,
      endpoint: s3.endpoint,
      download: 'service',
    });
    expect(service.logs.join('')).not.toContain('s3rver-secret-never-logged');
  });

  it('renders a lost or altered object again, checks it against its sha256 and stores it back', async () => {
    const resultId = await completeSubmission(service, account);
    const items = await artifactsOf(resultId);
    for (const item of items) {
      const original = (await download(item.access!.downloadUrl)).body;
      const file = objectPath(item.artifactId);
      if (item.type === 'pdf') fs.rmSync(file);
      else fs.writeFileSync(file, 'tampered');
      const again = await download(item.access!.downloadUrl);
      expect(again.status).toBe(200);
      expect(again.body.equals(original)).toBe(true);
      // Stored back: the S3 server may finish writing its file after it answered the PUT.
      await waitUntil(
        async () => fs.existsSync(file) && fs.readFileSync(file).equals(original),
        30_000,
        `the ${item.type} object stored back`,
      );
    }
  });

  it('deletes the objects of an erased subject: none of its strings is left in the object store’s files', async () => {
    const tag = randomUUID().replace(/-/g, '');
    const subject = `subj-${tag}`;
    const { resultId } = await completeTagged(service, account, tag);
    const ids = (await artifactsOf(resultId)).map((i) => i.artifactId);
    const contains = () => s3.files().some((f) => f.includes(`sub-${tag}`));
    // The JSON and HTML reports carry the partner's reference: the scan below can find it.
    expect(contains()).toBe(true);

    await eraseSubject(service, account, subject);
    expect(ids.filter((id) => fs.existsSync(objectPath(id)))).toEqual([]);
    expect(contains()).toBe(false);
  });
});

describe('the cleaner’s sweep of the object store', () => {
  it('deletes objects no available artifact names once they are older than the grace, and keeps the rest', async () => {
    const resultId = await completeSubmission(service, account);
    const kept = (await artifactsOf(resultId)).map((i) => i.artifactId);
    const store = service.store.system.artifacts as S3ArtifactStore;
    // A render whose commit never came (a crash between the write and the commit), and a stray key.
    const orphan = randomUUID();
    await store.restore(orphan, Buffer.from('never committed'));
    await store.restore('stray.txt', Buffer.from('not ours'));
    expect(fs.existsSync(objectPath(orphan))).toBe(true);

    // Within the grace (now): nothing goes.
    const now = new Cleaner({ store: service.store.system, clock: () => new Date() });
    expect((await now.runOnce()).orphanObjects).toBe(0);
    expect(fs.existsSync(objectPath(orphan))).toBe(true);

    const later = new Cleaner({
      store: service.store.system,
      clock: () => new Date(Date.now() + ORPHAN_GRACE_MS + 60_000),
    });
    expect((await later.runOnce()).orphanObjects).toBe(2);
    expect(fs.existsSync(objectPath(orphan))).toBe(false);
    expect(fs.existsSync(objectPath('stray.txt'))).toBe(false);
    expect(kept.filter((id) => fs.existsSync(objectPath(id)))).toEqual(kept);
  });
});

describe('ARTIFACT_DOWNLOAD=redirect', () => {
  let redirecting: TestService;
  let owner: TestAccount;
  beforeAll(async () => {
    redirecting = await startTestService({
      RATE_LIMIT_PER_MINUTE: '0',
      ARTIFACT_DOWNLOAD: 'redirect',
      METRICS_PORT: '0',
      ...s3.env('redirected'),
    });
    owner = await createAccount(redirecting);
  });
  afterAll(async () => {
    await redirecting?.stop();
  });

  it('answers a signed link with 302 to a presigned object URL valid 60 s, and serves a lost object itself', async () => {
    const resultId = await completeSubmission(redirecting, owner);
    const res = await getJson(redirecting, `/v1/results/${resultId}`, { 'x-api-key': owner.apiKey });
    const [item] = resultSchema.parse(res.json).artifacts.items.filter((i) => i.type === 'pdf');
    const url = new URL(item!.access!.downloadUrl);
    const link = `${redirecting.url}${url.pathname}${url.search}`;

    const first = await fetch(link, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const location = new URL(first.headers.get('location')!);
    expect(location.origin).toBe(s3.endpoint);
    expect(location.searchParams.get('X-Amz-Expires')).toBe('60');
    const object = await fetch(location);
    expect(object.status).toBe(200);
    const bytes = Buffer.from(await object.arrayBuffer());
    // The presigned URL opens this object only: another key, or another signature, is refused.
    const otherKey = new URL(location);
    otherKey.pathname = otherKey.pathname.replace(item!.artifactId, randomUUID());
    expect((await fetch(otherKey)).status).toBe(403);
    const otherSignature = new URL(location);
    const signature = otherSignature.searchParams.get('X-Amz-Signature')!;
    otherSignature.searchParams.set(
      'X-Amz-Signature',
      `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`,
    );
    expect((await fetch(otherSignature)).status).toBe(403);
    expect(sha256(bytes)).toBe(await recordedShaIn(redirecting, item!.artifactId));

    // The object lost: no redirect to nothing; the service renders it again and serves it.
    fs.rmSync(path.join(s3.directory, TEST_BUCKET, 'redirected', `${item!.artifactId}._S3rver_object`));
    const served = await fetch(link, { redirect: 'manual' });
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await fetch(link, { redirect: 'manual' })).status).toBe(302);

    const metrics = await (await fetch(redirecting.metricsUrl!)).text();
    const count = (labels: string) =>
      Number(
        new RegExp(`healthspan_object_store_operations_total\\{${labels}\\} (\\d+)`).exec(metrics)?.[1] ?? 0,
      );
    expect(count('operation="write",outcome="ok"')).toBeGreaterThanOrEqual(4);
    expect(count('operation="redirect",outcome="ok"')).toBe(2);
    expect(count('operation="redirect",outcome="missing"')).toBe(1);
    expect(count('operation="rerender",outcome="ok"')).toBe(1);
  });
});

describe('a bad object store setting', () => {
  it('refuses to start with one sentence naming the setting: a missing bucket, an endpoint nobody answers', async () => {
    const missing = startTestService({ ...s3.env(PREFIX, 'no-such-bucket') });
    await expect(missing).rejects.toThrow(ConfigError);
    await expect(missing).rejects.toThrow(/^ARTIFACT_STORE: the bucket no-such-bucket does not exist/);

    const wrong = startTestService({
      ...s3.env(PREFIX),
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${await freePort()}`,
    });
    await expect(wrong).rejects.toThrow(
      /^AWS_ENDPOINT_URL_S3: the object store for s3:\/\/healthspan-test\/reports\/v1\/ did not answer/,
    );

    await expect(startTestService({ ARTIFACT_STORE: 'http://bucket' })).rejects.toThrow(
      /^ARTIFACT_STORE: must look like s3:\/\/bucket/,
    );
  });

  it('refuses an unknown key id and a wrong secret in one sentence, never with the secret in it', async () => {
    const refused =
      /^ARTIFACT_STORE: s3:\/\/healthspan-test\/reports\/v1\/ refused these credentials \((\w+)\); check AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY/;
    const unknownKey = startTestService({ ...s3.env(PREFIX), AWS_ACCESS_KEY_ID: 'NOT-A-KEY' });
    await expect(unknownKey).rejects.toThrow(ConfigError);
    await expect(unknownKey).rejects.toThrow(refused);
    const wrongSecret = startTestService({ ...s3.env(PREFIX), AWS_SECRET_ACCESS_KEY: 'a-wrong-secret' });
    await expect(wrongSecret).rejects.toThrow(refused);
    await expect(wrongSecret).rejects.not.toThrow(/a-wrong-secret/);
  });
});
