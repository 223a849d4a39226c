import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DownloadLinks } from '../../src/http/download-links.js';
import { resultSchema } from '../../src/http/result-body.js';
import { submissionDetailSchema } from '../../src/http/schemas.js';
import { operatorOrigin } from '../../src/store/repositories/accounts.js';
import { loadOrCreateSecret } from '../../src/store/secrets.js';
import { alterStoredBytes, loseStoredBytes, storedBytes } from '../helpers/artifact-bytes.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  errorOf,
  getJson,
  postSubmission,
  serviceWithAccount,
  type TestAccount,
} from '../helpers/service.js';

const ctx = serviceWithAccount();

/** Every key a partner may see in a result body. Anything else is an internal leak. */
const PARTNER_KEYS = new Set([
  'resultId',
  'submissionId',
  'partnerSubmissionId',
  'status',
  'statusLabel',
  'completedAt',
  'outcome',
  'outcomes',
  'artifacts',
  'items',
  'artifactId',
  'type',
  'typeLabel',
  'availability',
  'availabilityLabel',
  'access',
  'downloadUrl',
  'expiresAt',
  'generatedAt',
  'outcomeId',
  'focus',
  'score',
  'referencePlacement',
  'referencePlacementLabel',
  'outcomeStatus',
  'outcomeStatusLabel',
  'band',
  'tier',
  'label',
  'notices',
  'message',
]);

function walk(
  value: unknown,
  visit: (key: string | null, v: unknown) => void,
  key: string | null = null,
): void {
  visit(key, value);
  if (Array.isArray(value)) for (const v of value) walk(v, visit, null);
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, visit, k);
}

async function submitAndComplete(mutate?: Parameters<typeof bodyFor>[1], who: TestAccount = ctx.account) {
  const res = await postSubmission(ctx.service, bodyFor(who, mutate), { apiKey: who.apiKey });
  expect(res.status).toBe(202);
  const id = String(res.json.submissionId);
  const detail = await waitUntil(
    async () => {
      const r = await getJson(ctx.service, `/v1/submissions/${id}`, { 'x-api-key': who.apiKey });
      return r.json.status === 'completed' && r.json;
    },
    15_000,
    'completion',
  );
  return { submissionId: id, detail };
}

describe('the pipeline, end to end over HTTP', () => {
  it('takes the example to completed with its result, artifacts and three completed jobs', async () => {
    const { detail } = await submitAndComplete();
    const parsed = submissionDetailSchema.strict().parse(detail);
    expect(parsed.resultId).toMatch(/^[0-9a-f-]{36}$/);
    expect(parsed.counts).toEqual({ documents: 0, results: 1, artifacts: 3 });
    expect(parsed.jobs.map((j) => j.type)).toEqual([
      'pipeline.ingest_validate',
      'pipeline.score',
      'pipeline.render_reports',
    ]);
    for (const job of parsed.jobs) {
      expect(job).toMatchObject({ status: 'completed', attempts: 1, slaBreached: false, errorSummary: null });
      expect(job.processingDurationMs).toBeGreaterThanOrEqual(0);
      expect(job.acceptedAt).toBe(parsed.createdAt);
      expect(job.slaDeadlineAt).toBe(parsed.jobs[0]!.slaDeadlineAt);
    }
    expect(Date.parse(parsed.updatedAt)).toBeGreaterThan(Date.parse(parsed.createdAt) - 1);
  });

  it('answers the result exactly as the contract lists, in plain language only', async () => {
    const { detail } = await submitAndComplete();
    const res = await getJson(ctx.service, `/v1/results/${detail.resultId}`, {
      'x-api-key': ctx.account.apiKey,
    });
    expect(res.status).toBe(200);
    const result = resultSchema.strict().parse(res.json);
    expect(result.status).toBe('completed');
    expect(result.outcomes?.map((o) => o.outcomeId)).toEqual([
      'wellbeing.cardiovascular',
      'wellbeing.cognitive',
      'wellbeing.renal',
      'wellbeing.respiratory',
    ]);
    expect(result.outcome).toEqual(result.outcomes![0]);
    for (const o of result.outcomes!) {
      expect(o.score).toBeGreaterThanOrEqual(0);
      expect(o.score).toBeLessThanOrEqual(1);
      expect(o.focus.length).toBeGreaterThan(0);
      expect(o.referencePlacementLabel.length).toBeGreaterThan(0);
      expect(o.outcomeStatusLabel.length).toBeGreaterThan(0);
    }
    expect(result.artifacts.items.map((a) => [a.type, a.availability])).toEqual([
      ['json', 'available'],
      ['html', 'available'],
      ['pdf', 'available'],
    ]);
    walk(res.json, (key, value) => {
      if (key !== null) expect(PARTNER_KEYS.has(key), `unexpected key ${key}`).toBe(true);
      if (typeof value === 'string') {
        expect(value).not.toMatch(/healthspan-wellbeing|framingham|ukbdrs|ckd-?pc|kotz|plco|bortz|tenant/i);
      }
    });
    expect(JSON.stringify(res.json)).not.toContain(ctx.account.tenantId);
  });

  it('omits outcomes when one outcome was requested', async () => {
    const { detail } = await submitAndComplete((b) => {
      b.options.requestedOutcomes = ['wellbeing.kidney'];
      b.options.requestedOutputs = ['score'];
    });
    const res = await getJson(ctx.service, `/v1/results/${detail.resultId}`, {
      'x-api-key': ctx.account.apiKey,
    });
    expect(res.json.outcomes).toBeUndefined();
    expect((res.json.outcome as { outcomeId: string }).outcomeId).toBe('wellbeing.renal');
    expect((res.json.artifacts as { items: unknown[] }).items).toEqual([]);
    expect((detail.counts as { artifacts: number }).artifacts).toBe(0);
  });

  it('scores a documents-only submission from the questionnaire, with notices', async () => {
    const { detail } = await submitAndComplete((b) => {
      delete b.markers;
      b.reportDocuments = [
        { documentType: 'summary', effectiveAt: '2026-11-20', summaryText: 'Annual review.' },
      ];
      b.options.requestedOutputs = ['score'];
    });
    const res = await getJson(ctx.service, `/v1/results/${detail.resultId}`, {
      'x-api-key': ctx.account.apiKey,
    });
    const result = resultSchema.parse(res.json);
    const byId = Object.fromEntries(result.outcomes!.map((o) => [o.outcomeId, o]));
    expect(byId['wellbeing.renal']!.outcomeStatus).toBe('failed');
    expect(byId['wellbeing.cardiovascular']!.outcomeStatus).toBe('partial');
    expect(byId['wellbeing.cardiovascular']!.notices?.length).toBeGreaterThan(0);
  });

  it('serves each artifact through its signed link, byte for byte, and refuses altered or expired links', async () => {
    const { detail } = await submitAndComplete();
    const res = await getJson(ctx.service, `/v1/results/${detail.resultId}`, {
      'x-api-key': ctx.account.apiKey,
    });
    const items = resultSchema.parse(res.json).artifacts.items;
    const expected: Record<string, RegExp> = {
      json: /^application\/json/,
      html: /^text\/html/,
      pdf: /^application\/pdf/,
    };
    for (const item of items) {
      const url = new URL(item.access!.downloadUrl);
      const download = await fetch(`${ctx.service.url}${url.pathname}${url.search}`);
      expect(download.status).toBe(200);
      expect(download.headers.get('content-type')).toMatch(expected[item.type]!);
      expect(download.headers.get('content-disposition')).toMatch(
        new RegExp(`filename="wellbeing-report-sub-000123\\.${item.type}"`),
      );
      expect(download.headers.get('cache-control')).toBe('private, no-store');
      expect(download.headers.get('x-content-type-options')).toBe('nosniff');
      if (item.type === 'html')
        expect(download.headers.get('content-security-policy')).toContain("default-src 'none'");
      const bytes = Buffer.from(await download.arrayBuffer());
      const stored = await ctx.service.store.driver.db
        .selectFrom('artifacts')
        .select(['sha256', 'byte_size'])
        .where('id', '=', item.artifactId)
        .executeTakeFirstOrThrow();
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(stored.sha256);
      expect(bytes.length).toBe(stored.byte_size);
    }

    const [first, second] = items;
    const u1 = new URL(first!.access!.downloadUrl);
    const u2 = new URL(second!.access!.downloadUrl);
    const tampered = new URLSearchParams(u1.search);
    // Change one character for certain (the old "last two become AA" matched itself 1 time in 1,024).
    const signature = tampered.get('signature')!;
    tampered.set(
      'signature',
      `${signature.slice(0, 10)}${signature[10] === 'A' ? 'B' : 'A'}${signature.slice(11)}`,
    );
    const laterExpiry = new URLSearchParams(u1.search);
    laterExpiry.set('expires', String(Number(laterExpiry.get('expires')) + 3600));
    const links = new DownloadLinks(
      loadOrCreateSecret(ctx.service.config.dataDir, 'download-signing.key'),
      ctx.service.url,
      -60,
    );
    const expired = new URL(links.issue(first!.artifactId, new Date()).downloadUrl);
    for (const path of [
      `${u1.pathname}?${tampered}`,
      `${u1.pathname}?${laterExpiry}`,
      `${u1.pathname}${u2.search}`,
      `${expired.pathname}${expired.search}`,
      u1.pathname,
      `/v1/artifacts/not-a-uuid/content${u1.search}`,
    ]) {
      const r = await fetch(`${ctx.service.url}${path}`);
      expect(r.status, path).toBe(403);
      expect(errorOf((await r.json()) as Record<string, unknown>).code).toBe('FORBIDDEN');
    }
  });

  it('renders an artifact again, byte for byte, when its stored bytes were lost or altered', async () => {
    const { detail } = await submitAndComplete();
    const res = await getJson(ctx.service, `/v1/results/${detail.resultId}`, {
      'x-api-key': ctx.account.apiKey,
    });
    const items = resultSchema.parse(res.json).artifacts.items;
    const fetchBytes = async (item: (typeof items)[number]) => {
      const url = new URL(item.access!.downloadUrl);
      const r = await fetch(`${ctx.service.url}${url.pathname}${url.search}`);
      expect(r.status).toBe(200);
      return Buffer.from(await r.arrayBuffer());
    };
    for (const item of items) {
      const original = await fetchBytes(item);
      expect((await storedBytes(ctx.service, item.artifactId))?.equals(original)).toBe(true);
      if (item.type === 'pdf') await loseStoredBytes(ctx.service, item.artifactId);
      else await alterStoredBytes(ctx.service, item.artifactId, Buffer.from('tampered'));
      expect((await fetchBytes(item)).equals(original)).toBe(true);
      expect((await storedBytes(ctx.service, item.artifactId))?.equals(original)).toBe(true);
    }
  });

  it('refuses a signed link once its ctx.account is deactivated or its artifact is gone', async () => {
    const owner = await createAccount(ctx.service);
    const { detail } = await submitAndComplete(undefined, owner);
    const res = await getJson(ctx.service, `/v1/results/${detail.resultId}`, { 'x-api-key': owner.apiKey });
    const [item] = resultSchema.parse(res.json).artifacts.items;
    const url = new URL(item!.access!.downloadUrl);
    const download = () => fetch(`${ctx.service.url}${url.pathname}${url.search}`);
    expect((await download()).status).toBe(200);

    await ctx.service.store.system.accounts.setTenantActive(owner.tenantId, false, operatorOrigin('test'));
    const refused = await download();
    expect(refused.status).toBe(403);
    expect(errorOf((await refused.json()) as Record<string, unknown>).code).toBe('ACCOUNT_INACTIVE');

    await ctx.service.store.system.accounts.setTenantActive(owner.tenantId, true, operatorOrigin('test'));
    expect((await download()).status).toBe(200);

    await ctx.service.store.driver.db
      .deleteFrom('artifact_contents')
      .where('artifact_id', '=', item!.artifactId)
      .execute();
    await ctx.service.store.driver.db.deleteFrom('artifacts').where('id', '=', item!.artifactId).execute();
    const gone = await download();
    expect(gone.status).toBe(404);
    expect(errorOf((await gone.json()) as Record<string, unknown>).code).toBe('NOT_FOUND');
  });

  it('answers 404 for another tenant’s result, an unknown id and a non-UUID', async () => {
    const { detail } = await submitAndComplete();
    const other = await createAccount(ctx.service);
    for (const [path, key] of [
      [`/v1/results/${detail.resultId}`, other.apiKey],
      ['/v1/results/0190a7e0-0000-7000-8000-000000000000', ctx.account.apiKey],
      ['/v1/results/nope', ctx.account.apiKey],
    ] as const) {
      const r = await getJson(ctx.service, path, { 'x-api-key': key });
      expect(r.status, path).toBe(404);
      expect(errorOf(r.json).code).toBe('NOT_FOUND');
    }
  });
});
