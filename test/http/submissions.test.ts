import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acceptedSubmissionSchema, submissionDetailSchema } from '../../src/http/schemas.js';
import { isPacked, unpackJson } from '../../src/store/packing/packed-json.js';
import {
  bodyFor,
  createAccount,
  errorOf,
  getJson,
  postSubmission,
  startTestService,
  type TestService,
  uniqueKey,
} from '../helpers/service.js';

let service: TestService;

beforeAll(async () => {
  // No worker: these tests look at what ingest alone stores.
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0', WORKER_CONCURRENCY: '0' });
});
afterAll(async () => {
  await service.stop();
});

describe('POST /v1/submissions then GET /v1/submissions/{id}', () => {
  it('accepts, stores durably and reads back as received with its pending job', async () => {
    const account = await createAccount(service);
    const res = await postSubmission(service, bodyFor(account), {
      apiKey: account.apiKey,
      correlationId: 'corr-read-back',
    });
    expect(res.status).toBe(202);
    const accepted = acceptedSubmissionSchema.strict().parse(res.json);
    expect(accepted.partnerSubmissionId).toBe('sub-000123');
    expect(accepted.partnerSubjectId).toBe('subj-9f8e7d');
    expect(res.headers.get('location')).toBe(`/v1/submissions/${accepted.submissionId}`);

    const read = await getJson(service, `/v1/submissions/${accepted.submissionId}`, {
      'x-api-key': account.apiKey,
    });
    expect(read.status).toBe(200);
    const detail = submissionDetailSchema.strict().parse(read.json);
    expect(detail.status).toBe('received');
    expect(detail.statusLabel.length).toBeGreaterThan(0);
    expect(detail.counts).toEqual({ documents: 0, results: 0, artifacts: 0 });
    expect(detail.resultId).toBeUndefined();
    expect(detail.jobs).toHaveLength(1);
    const job = detail.jobs[0]!;
    expect(job).toMatchObject({
      jobId: accepted.jobId,
      type: 'pipeline.ingest_validate',
      status: 'pending',
      correlationId: 'corr-read-back',
      attempts: 0,
      slaBreached: false,
      startedAt: null,
      errorSummary: null,
    });
    expect(job.typeLabel.length).toBeGreaterThan(0);
    expect(job.statusLabel.length).toBeGreaterThan(0);
    expect(Date.parse(job.slaDeadlineAt!) - Date.parse(job.acceptedAt)).toBe(300_000);
  });

  it('stores the original body beside the normalised one (canonical codes and units)', async () => {
    const account = await createAccount(service);
    const body = bodyFor(account, (b) => {
      const markers = b.markers as Array<{ code: string; unit: string }>;
      markers[0]!.code = 'ALB';
      const urate = markers.find((m) => m.code === 'URATE')!;
      urate.unit = 'umol/L';
    });
    const res = await postSubmission(service, body, { apiKey: account.apiKey });
    expect(res.status).toBe(202);
    const row = await service.store.driver.db
      .selectFrom('submissions')
      .select(['original_body', 'normalised_body', 'tenant_id'])
      .where('id', '=', String(res.json.submissionId))
      .executeTakeFirstOrThrow();
    expect(row.tenant_id).toBe(account.tenantId);
    // Packed on PostgreSQL (store/packing/), to a fraction of their text's size; text on SQLite.
    const packed = service.store.driver.name === 'postgres';
    expect([isPacked(row.original_body), isPacked(row.normalised_body)]).toEqual([packed, packed]);
    const original = JSON.parse(unpackJson(row.original_body));
    const normalised = JSON.parse(unpackJson(row.normalised_body));
    if (packed) expect(row.normalised_body.length).toBeLessThan(unpackJson(row.normalised_body).length / 4);
    expect(original.markers[0].code).toBe('ALB');
    const codes = normalised.markers.map((m: { code: string }) => m.code);
    expect(codes).toContain('ALBUMIN');
    expect(codes).not.toContain('ALB');
    expect(normalised.markers.find((m: { code: string }) => m.code === 'URATE').unit).toBe('µmol/L');
  });

  it('counts documents on a documents-only submission', async () => {
    const account = await createAccount(service);
    const body = bodyFor(account, (b) => {
      delete b.markers;
      b.reportDocuments = [
        {
          documentType: 'summary',
          effectiveAt: '2026-11-20T09:30:00Z',
          summaryText: 'Routine review, no concerns.',
        },
        { documentType: 'summary', effectiveAt: '2026-11-19T09:30:00Z', summaryText: 'Follow-up in a year.' },
      ];
    });
    const res = await postSubmission(service, body, { apiKey: account.apiKey });
    expect(res.status).toBe(202);
    const read = await getJson(service, `/v1/submissions/${res.json.submissionId}`, {
      'x-api-key': account.apiKey,
    });
    expect((read.json.counts as { documents: number }).documents).toBe(2);
  });
});

describe('what partners and logs see', () => {
  it('keeps tenant ids out of partner bodies and submitted data out of the logs', async () => {
    const account = await createAccount(service);
    // Not hex, so it cannot turn up by chance inside a random request or row id.
    const canary = 'Zq9Xw';
    const body = bodyFor(account, (b) => {
      b.partnerSubjectId = `subj-canary-${canary}`;
      b.sourceMetadata.labName = `Canary Lab ${canary}`;
      b.subject.demographics.ethnicity = `canary_${canary}`;
    });
    const res = await postSubmission(service, body, { apiKey: account.apiKey, correlationId: 'corr-canary' });
    expect(res.status).toBe(202);
    const read = await getJson(service, `/v1/submissions/${res.json.submissionId}`, {
      'x-api-key': account.apiKey,
    });
    for (const json of [res.json, read.json]) {
      const text = JSON.stringify(json);
      expect(text).not.toContain(account.tenantId);
      expect(text).not.toMatch(/"tenantId"|"tenant_id"|"payload"|"lockedBy"/);
    }
    const logs = service.logs.join('');
    expect(logs).toContain('corr-canary');
    expect(logs).not.toContain(canary);
    expect(logs).not.toContain(account.apiKey);
  });
});

describe('idempotency', () => {
  it('replays the same key and body with the same ids', async () => {
    const account = await createAccount(service);
    const key = uniqueKey();
    const first = await postSubmission(service, bodyFor(account), {
      apiKey: account.apiKey,
      idempotencyKey: key,
    });
    const second = await postSubmission(service, bodyFor(account), {
      apiKey: account.apiKey,
      idempotencyKey: key,
    });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.json).toEqual(first.json);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
  });

  it('treats key order and whitespace as the same body', async () => {
    const account = await createAccount(service);
    const key = uniqueKey();
    const body = bodyFor(account);
    const reordered = Object.fromEntries(Object.entries(body).reverse());
    const first = await postSubmission(service, body, { apiKey: account.apiKey, idempotencyKey: key });
    const second = await postSubmission(service, null, {
      apiKey: account.apiKey,
      idempotencyKey: key,
      rawBody: JSON.stringify(reordered, null, 2),
    });
    expect(second.status).toBe(202);
    expect(second.json.submissionId).toBe(first.json.submissionId);
    expect(second.json.jobId).toBe(first.json.jobId);
  });

  it('answers 409 IDEMPOTENCY_MISMATCH for the same key with a different body', async () => {
    const account = await createAccount(service);
    const key = uniqueKey();
    await postSubmission(service, bodyFor(account), { apiKey: account.apiKey, idempotencyKey: key });
    const res = await postSubmission(
      service,
      bodyFor(account, (b) => {
        b.partnerSubmissionId = 'sub-different';
      }),
      { apiKey: account.apiKey, idempotencyKey: key },
    );
    expect(res.status).toBe(409);
    expect(errorOf(res.json).code).toBe('IDEMPOTENCY_MISMATCH');
  });

  it('scopes keys to the partner credential', async () => {
    const a = await createAccount(service);
    const b = await createAccount(service);
    const key = uniqueKey();
    const first = await postSubmission(service, bodyFor(a), { apiKey: a.apiKey, idempotencyKey: key });
    const second = await postSubmission(service, bodyFor(b), { apiKey: b.apiKey, idempotencyKey: key });
    expect(second.status).toBe(202);
    expect(second.json.submissionId).not.toBe(first.json.submissionId);
  });

  it('stores nothing for a request that fails validation', async () => {
    const account = await createAccount(service);
    const key = uniqueKey();
    const bad = await postSubmission(
      service,
      bodyFor(account, (b) => delete b.subject),
      {
        apiKey: account.apiKey,
        idempotencyKey: key,
      },
    );
    expect(bad.status).toBe(400);
    const good = await postSubmission(service, bodyFor(account), {
      apiKey: account.apiKey,
      idempotencyKey: key,
    });
    expect(good.status).toBe(202);
    expect(good.headers.get('idempotent-replayed')).toBeNull();
  });

  it('creates exactly one submission for 20 concurrent identical requests', async () => {
    const account = await createAccount(service);
    const key = uniqueKey('concurrent');
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        postSubmission(service, bodyFor(account), { apiKey: account.apiKey, idempotencyKey: key }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(202));
    expect(new Set(results.map((r) => r.json.submissionId)).size).toBe(1);
    expect(new Set(results.map((r) => r.json.jobId)).size).toBe(1);
    const count = await service.store.driver.db
      .selectFrom('submissions')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', account.tenantId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(1);
    const jobs = await service.store.driver.db
      .selectFrom('jobs')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('tenant_id', '=', account.tenantId)
      .executeTakeFirstOrThrow();
    expect(Number(jobs.n)).toBe(1);
  });
});

describe('tenancy', () => {
  it('answers 404 for another tenant’s id, an unknown id and a non-UUID', async () => {
    const a = await createAccount(service, { name: 'Tenant A' });
    const b = await createAccount(service, { name: 'Tenant B' });
    const created = await postSubmission(service, bodyFor(a), { apiKey: a.apiKey });
    const id = String(created.json.submissionId);

    const own = await getJson(service, `/v1/submissions/${id}`, { 'x-api-key': a.apiKey });
    expect(own.status).toBe(200);
    const uppercase = await getJson(service, `/v1/submissions/${id.toUpperCase()}`, {
      'x-api-key': a.apiKey,
    });
    expect(uppercase.status).toBe(200);

    for (const [path, key] of [
      [`/v1/submissions/${id}`, b.apiKey],
      ['/v1/submissions/0190a7e0-0000-7000-8000-000000000000', a.apiKey],
      ['/v1/submissions/not-a-uuid', a.apiKey],
      ["/v1/submissions/1'%20OR%20'1'='1", a.apiKey],
    ] as const) {
      const res = await getJson(service, path, { 'x-api-key': key });
      expect(res.status, path).toBe(404);
      expect(errorOf(res.json).code).toBe('NOT_FOUND');
    }
  });
});
