import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/ingest/index.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  errorOf,
  exampleBody,
  getJson,
  postSubmission,
  serviceWithAccount,
} from '../helpers/service.js';

/**
 * What the door accepts, the pipeline reads the same way (issue 12, defects 2 and 3): one JSON
 * reader for both. Every accepted oddity must complete; every refused one is a 400 at its path.
 */
const ctx = serviceWithAccount();

function postRaw(rawBody: string | Buffer) {
  return postSubmission(ctx.service, undefined, {
    apiKey: ctx.account.apiKey,
    rawBody,
    correlationId: 'json-bodies',
  });
}

async function completes(submissionId: string): Promise<void> {
  const detail = await waitUntil(
    async () => {
      const res = await getJson(ctx.service, `/v1/submissions/${submissionId}`, {
        'x-api-key': ctx.account.apiKey,
      });
      const status = res.json.status as string;
      return ['completed', 'failed', 'rejected'].includes(status) ? res.json : undefined;
    },
    30_000,
    `submission ${submissionId} to finish`,
  );
  expect(detail.status, JSON.stringify(detail.jobs)).toBe('completed');
}

/** Every path to a string in the example body, e.g. ['subject', 'demographics', 'ethnicity']. */
function stringPaths(value: unknown, path: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value === 'string') return [path];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringPaths(item, [...path, i]));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => stringPaths(item, [...path, key]));
  }
  return [];
}

function formatted(path: Array<string | number>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** The example body as text with the string at `path` replaced by raw JSON text `json`. */
function withRawString(path: Array<string | number>, json: string): string {
  const marker = 'REPLACED-BY-TEST';
  const body = bodyFor(ctx.account);
  let target = body;
  for (const p of path.slice(0, -1)) target = target[p];
  target[path[path.length - 1]!] = marker;
  return JSON.stringify(body).replace(`"${marker}"`, json);
}

describe('texts the door accepts complete in the pipeline', () => {
  it('a body with a UTF-8 byte-order mark', async () => {
    const res = await postRaw(`\uFEFF${JSON.stringify(bodyFor(ctx.account))}`);
    expect(res.status).toBe(202);
    await completes(res.json.submissionId as string);
  });

  it('-0, 1e2 and an age of 54.0000000000000001 as numbers, an unknown top-level key, escaped text', async () => {
    const text = JSON.stringify(
      bodyFor(ctx.account, (b) => {
        b.subject.demographics.educationYears = 0;
        b.subject.measurements.weightKg = 100;
        b.subject.demographics.ethnicity = 'white';
        b.unknownTopLevelKey = { ignored: true };
      }),
    )
      .replace('"educationYears":0', '"educationYears":-0')
      .replace('"weightKg":100', '"weightKg":1e2')
      .replace(/"ageYears":(\d+)/, '"ageYears":$1.0000000000000001')
      .replace('"ethnicity":"white"', '"ethnicity":"wh\\u0069te \\ud83d\\ude00 \\t"');
    const res = await postRaw(text);
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    await completes(res.json.submissionId as string);
  });

  it('invalid UTF-8 in a string, replaced by U+FFFD', async () => {
    const text = JSON.stringify(bodyFor(ctx.account, (b) => (b.subject.demographics.ethnicity = 'XX')));
    const bytes = Buffer.from(text, 'utf8');
    const at = bytes.indexOf('XX');
    bytes[at] = 0xff;
    bytes[at + 1] = 0xc3;
    const res = await postRaw(bytes);
    expect(res.status, JSON.stringify(res.json)).toBe(202);
    await completes(res.json.submissionId as string);
  });
});

describe('texts the door refuses, at their path', () => {
  const paths = stringPaths(exampleBody()).filter((p) => p[0] !== 'schemaVersion' && p[0] !== 'partnerId');

  it.each(paths.map((p) => [formatted(p), p] as const))(
    'an unpaired surrogate in %s',
    async (field, path) => {
      const res = await postRaw(withRawString(path, '"ok\\udc00"'));
      expect(res.status, JSON.stringify(res.json)).toBe(400);
      const error = errorOf(res.json);
      expect(error.code).toBe('VALIDATION_ERROR');
      expect((error.details as { fieldErrors: Record<string, string[]> }).fieldErrors[field]?.[0]).toMatch(
        /not valid Unicode text/,
      );
    },
  );

  it.each(paths.map((p) => [formatted(p), p] as const))('a NUL character in %s', async (field, path) => {
    const res = await postRaw(withRawString(path, '"a\\u0000b"'));
    expect(res.status).toBe(400);
    const details = errorOf(res.json).details as { fieldErrors: Record<string, string[]> };
    expect(details.fieldErrors[field]?.[0]).toMatch(/NUL/);
  });

  it('an unpaired surrogate in a key', async () => {
    const text = JSON.stringify(bodyFor(ctx.account)).replace('"sourceSystem"', '"source\\ud800System"');
    const res = await postRaw(text);
    expect(res.status).toBe(400);
    const details = errorOf(res.json).details as { fieldErrors: Record<string, string[]> };
    expect(Object.values(details.fieldErrors).flat().join(' ')).toMatch(/not valid Unicode text/);
  });

  it('a key repeated in one object', async () => {
    const text = JSON.stringify(bodyFor(ctx.account)).replace(
      '"sexAtBirth":',
      '"sexAtBirth":"female","sexAtBirth":',
    );
    const res = await postRaw(text);
    expect(res.status).toBe(400);
    const details = errorOf(res.json).details as { fieldErrors: Record<string, string[]> };
    expect(details.fieldErrors['subject.demographics.sexAtBirth']).toEqual([
      'The key "sexAtBirth" appears more than once in this object.',
    ]);
  });

  it('a repeated key written with escapes (the same key once decoded)', async () => {
    const text = JSON.stringify(bodyFor(ctx.account)).replace(
      '"sexAtBirth":',
      '"sexAtBirth":"female","sex\\u0041tBirth":',
    );
    const res = await postRaw(text);
    expect(res.status).toBe(400);
    const details = errorOf(res.json).details as { fieldErrors: Record<string, string[]> };
    expect(details.fieldErrors['subject.demographics.sexAtBirth']).toBeDefined();
  });

  it('a number beyond double range (1e309)', async () => {
    const text = JSON.stringify(bodyFor(ctx.account, (b) => (b.subject.measurements.weightKg = 77))).replace(
      '"weightKg":77',
      '"weightKg":1e309',
    );
    const res = await postRaw(text);
    expect(res.status).toBe(400);
    const details = errorOf(res.json).details as { fieldErrors: Record<string, string[]> };
    expect(details.fieldErrors['subject.measurements.weightKg']).toBeDefined();
  });

  it(`nesting deeper than ${MAX_JSON_DEPTH} levels, even 100,000 deep`, async () => {
    for (const depth of [MAX_JSON_DEPTH + 1, 100_000]) {
      const text = JSON.stringify(bodyFor(ctx.account, (b) => (b.clinicalExtensions = { deep: 0 }))).replace(
        '"deep":0',
        `"deep":${'['.repeat(depth)}${']'.repeat(depth)}`,
      );
      const res = await postRaw(text);
      expect(res.status).toBe(400);
      expect((errorOf(res.json).details as { formErrors: string[] }).formErrors[0]).toMatch(
        /nested more than/,
      );
    }
  });

  it('__proto__ and constructor.prototype keys', async () => {
    for (const injected of [
      '"__proto__":{"polluted":true}',
      '"constructor":{"prototype":{"polluted":true}}',
    ]) {
      const text = JSON.stringify(bodyFor(ctx.account)).replace('{', `{${injected},`);
      const res = await postRaw(text);
      expect(res.status).toBe(400);
      expect(errorOf(res.json).code).toBe('VALIDATION_ERROR');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('invalid JSON, with where it stopped', async () => {
    const res = await postRaw('{"a":1,}');
    expect(res.status).toBe(400);
    expect((errorOf(res.json).details as { formErrors: string[] }).formErrors).toEqual([
      'The request body is not valid JSON (line 1, column 8).',
    ]);
  });

  it('a charset other than UTF-8', async () => {
    const res = await fetch(`${ctx.service.url}/v1/submissions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-16',
        'x-api-key': ctx.account.apiKey,
        'idempotency-key': 'charset',
        'x-correlation-id': 'c',
      },
      body: JSON.stringify(bodyFor(ctx.account)),
    });
    expect(res.status).toBe(415);
  });
});

describe('a replay of a body stored with a byte-order mark', () => {
  it('compares as the same JSON value', async () => {
    const body = bodyFor(ctx.account);
    const key = `bom-replay-${Math.random()}`;
    const headers = {
      'content-type': 'application/json',
      'x-api-key': ctx.account.apiKey,
      'idempotency-key': key,
      'x-correlation-id': 'c',
    };
    const first = await fetch(`${ctx.service.url}/v1/submissions`, {
      method: 'POST',
      headers,
      body: `\uFEFF${JSON.stringify(body)}`,
    });
    expect(first.status).toBe(202);
    const again = await postSubmission(ctx.service, body, {
      apiKey: ctx.account.apiKey,
      idempotencyKey: key,
      correlationId: 'c',
    });
    expect(again.status).toBe(202);
    expect(again.json.submissionId).toBe(((await first.json()) as { submissionId: string }).submissionId);
  });
});
