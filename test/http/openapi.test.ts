import { createHmac } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MARKER_ALIASES, MARKER_CODES, MARKERS } from '../../src/domain/submission/markers.js';
import type { ErrorCode } from '../../src/http/errors.js';
import { ERROR_CODES } from '../../src/http/openapi-errors.js';
import { operatorOrigin } from '../../src/store/repositories/accounts.js';
import { resultReadyBody } from '../../src/webhooks/outbox.js';
import { cliFor } from '../helpers/cli.js';
import { waitUntil } from '../helpers/pipeline.js';
import { envelopeOf, rawRequest } from '../helpers/raw-http.js';
import { TestReceiver } from '../helpers/receiver.js';
import {
  bodyFor,
  createAccount,
  exampleBody,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
  uniqueKey,
} from '../helpers/service.js';

type Schema = Record<string, unknown>;
interface Media {
  schema?: Schema;
  examples?: Record<string, { value: unknown }>;
}
interface Header {
  required?: boolean;
  schema: Schema;
}
interface Response {
  description: string;
  headers?: Record<string, Header>;
  content?: Record<string, Media>;
}
interface Operation {
  operationId: string;
  security?: unknown[];
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: Schema }>;
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, Response>;
  description?: string;
}
type OpenApi = {
  openapi: string;
  info: { version: string; description: string };
  servers: Array<{ url: string; variables?: Record<string, { default: string }> }>;
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

const DEADLINE = 60_000;
let service: TestService;
let doc: OpenApi;
const receiver = new TestReceiver();
let callbackUrl: string;

beforeAll(async () => {
  callbackUrl = await receiver.start();
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_ALLOW_INSECURE: 'true' });
  doc = (await getJson(service, '/openapi.json')).json as unknown as OpenApi;
});
afterAll(async () => {
  await service?.stop();
  await receiver.stop();
});

/** Validates against any schema of the document by JSON pointer, with its $refs resolved. */
function validatorFor(document: OpenApi) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...document, $id: 'doc' });
  return (pointer: string) => {
    const validate = ajv.getSchema(`doc#${pointer}`);
    if (!validate) throw new Error(`no schema at ${pointer}`);
    return validate;
  };
}

const pointerPart = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

function operations(
  document: OpenApi,
): Array<{ path: string; method: string; op: Operation; pointer: string }> {
  return Object.entries(document.paths).flatMap(([p, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      path: p,
      method,
      op,
      pointer: `/paths/${pointerPart(p)}/${method}`,
    })),
  );
}

function op(path: string, method = 'get'): Operation {
  return doc.paths[path]![method]!;
}

/** The `error.code` enum a response declares. */
function codesOf(operation: Operation, status: string): string[] {
  const schema = operation.responses[status]?.content?.['application/json']?.schema as
    | { properties?: { error?: { properties: { code: { enum: string[] } } } } }
    | undefined;
  return schema?.properties?.error?.properties.code.enum ?? [];
}

const WATCHED_HEADERS = [
  'x-request-id',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'retry-after',
  'location',
  'idempotent-replayed',
  'www-authenticate',
];

/**
 * A real answer matches its documented response: status declared, body valid against the schema,
 * its error code in the enum, every watched header it carries declared and every required one sent.
 */
function expectDocumented(
  path: string,
  method: string,
  res: { status: number; json?: unknown; headers: Headers | Record<string, string> },
) {
  const operation = op(path, method);
  const status = String(res.status);
  const response = operation.responses[status];
  expect(response, `${method} ${path} ${status} is documented`).toBeDefined();
  const get = (name: string) =>
    res.headers instanceof Headers ? res.headers.get(name) : (res.headers[name] ?? null);
  const declared = Object.keys(response!.headers ?? {}).map((h) => h.toLowerCase());
  for (const name of WATCHED_HEADERS) {
    if (get(name) !== null) expect(declared, `${method} ${path} ${status} declares ${name}`).toContain(name);
  }
  for (const [name, header] of Object.entries(response!.headers ?? {})) {
    if (header.required)
      expect(get(name.toLowerCase()), `${method} ${path} ${status} sends ${name}`).not.toBeNull();
  }
  if (res.json !== undefined && response!.content?.['application/json']) {
    const validate = validatorFor(doc)(
      `/paths/${pointerPart(path)}/${method}/responses/${status}/content/application~1json/schema`,
    );
    expect(validate(res.json), JSON.stringify(validate.errors)).toBe(true);
    const code = (res.json as { error?: { code: string } }).error?.code;
    if (code !== undefined) expect(codesOf(operation, status)).toContain(code);
  }
}

async function submitAndComplete(account: TestAccount): Promise<{ submissionId: string; resultId: string }> {
  const accepted = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
  expect(accepted.status).toBe(202);
  const submissionId = accepted.json.submissionId as string;
  const done = await waitUntil(
    async () => {
      const d = await getJson(service, `/v1/submissions/${submissionId}`, { 'x-api-key': account.apiKey });
      return d.json.status === 'completed' && d.json;
    },
    DEADLINE,
    'completion',
  );
  return { submissionId, resultId: done.resultId as string };
}

describe('the served OpenAPI document', () => {
  it('is a valid OpenAPI 3.1.0 document, version 0.1.0, with a usable templated server', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
    expect(doc.servers).toEqual([
      expect.objectContaining({
        url: '{baseUrl}',
        variables: { baseUrl: expect.objectContaining({ default: 'http://localhost:8080' }) },
      }),
    ]);
    const yaml = await fetch(`${service.url}/openapi.yaml`);
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    // Read to the end: a response left unread holds its connection, and the server's close waits.
    expect((await yaml.text()).length).toBeGreaterThan(0);
    expect(Object.keys(op('/openapi.yaml').responses['200']!.content!)).toEqual(['application/yaml']);
  });

  it('describes every route the server answers, and no route it does not', () => {
    const served = service.app.routeTable
      .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS' && !r.url.includes('*'))
      // The console's pages (docs/console.md) are HTML for people, not part of the API.
      .filter((r) => !r.url.startsWith('/console'))
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const documented = operations(doc)
      .map((o) => `${o.method.toUpperCase()} ${o.path}`)
      .sort();
    expect(documented).toEqual(served);
  });

  it('declares its own 200 JSON answer for /openapi.json, and that is what it sends', async () => {
    const res = await getJson(service, '/openapi.json');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const schema = op('/openapi.json').responses['200']!.content!['application/json']!.schema!;
    expect(schema.type).toBe('object');
    expectDocumented('/openapi.json', 'get', res);
  });

  it('marks /v1 operations as needing a key, signed-link downloads and support routes as open', () => {
    for (const { path, method, op: operation } of operations(doc)) {
      if (path.startsWith('/v1/') && !path.startsWith('/v1/artifacts/')) {
        expect(operation.security, `${method} ${path}`).toBeUndefined();
        expect(codesOf(operation, '401'), `${method} ${path}`).toEqual(['INVALID_API_KEY']);
      } else {
        expect(operation.security, `${method} ${path}`).toEqual([]);
        expect(operation.responses['401'], `${method} ${path}`).toBeUndefined();
      }
    }
  });

  it('drops the long regex patterns where format says it', () => {
    const patterns: Array<{ at: string; format: unknown; length: number }> = [];
    const walk = (node: unknown, at: string) => {
      if (Array.isArray(node)) {
        for (const [i, n] of node.entries()) walk(n, `${at}/${i}`);
      } else if (node && typeof node === 'object') {
        const record = node as Record<string, unknown>;
        if (typeof record.pattern === 'string')
          patterns.push({ at, format: record.format, length: record.pattern.length });
        for (const [k, v] of Object.entries(record)) walk(v, `${at}/${k}`);
      }
    };
    walk(doc, '');
    expect(patterns.filter((p) => p.length > 64)).toEqual([]);
    expect(patterns.filter((p) => ['uuid', 'date-time', 'date'].includes(String(p.format)))).toEqual([]);
    // The UUIDs and timestamps are still described, by their format.
    const accepted = JSON.stringify(doc.components.schemas.AcceptedSubmission);
    expect(accepted).toContain('"format":"uuid"');
    expect(accepted).toContain('"format":"date-time"');
  });
});

describe('the result.ready webhook', () => {
  it('is described with the headers, body and signature of a real delivery', async () => {
    const webhook = doc.webhooks['result.ready']!.post!;
    const account = await createAccount(service);
    const set = await cliFor(service, [
      'webhooks',
      'set',
      '--partner',
      account.partnerId,
      '--url',
      callbackUrl,
    ]);
    expect(set.code, set.stderr).toBe(0);
    const secret = set.json!.signingSecret as string;
    const before = receiver.deliveries.length;
    const { resultId } = await submitAndComplete(account);
    const delivery = await waitUntil(async () => receiver.deliveries[before], DEADLINE, 'a delivery');

    // Every X-Healthspan-* header sent is declared, with a schema its value satisfies, and every
    // required one is sent; the mode header is declared optional (test deliveries only).
    const declared = new Map(
      (webhook.parameters ?? []).filter((p) => p.in === 'header').map((p) => [p.name.toLowerCase(), p]),
    );
    const sent = Object.keys(delivery.headers).filter((h) => h.startsWith('x-healthspan-'));
    expect(sent.sort()).toEqual(
      [...declared.keys()].filter((h) => h.startsWith('x-healthspan-') && h !== 'x-healthspan-mode').sort(),
    );
    expect(declared.get('x-healthspan-mode')?.required).toBeFalsy();
    const validate = validatorFor(doc);
    for (const name of sent) {
      const index = webhook.parameters!.findIndex((p) => p.name.toLowerCase() === name);
      const check = validate(`/webhooks/result.ready/post/parameters/${index}/schema`);
      expect(check(delivery.headers[name]), `${name}: ${JSON.stringify(check.errors)}`).toBe(true);
      expect(declared.get(name)!.required).toBe(true);
    }
    expect(declared.get('x-api-key')?.required).toBeFalsy();

    // The body is valid against the declared schema, field for field in the wire order.
    const body = JSON.parse(delivery.rawBody.toString('utf8')) as Record<string, unknown>;
    const bodySchema = webhook.requestBody!.content['application/json']!.schema!;
    const checkBody = validate('/webhooks/result.ready/post/requestBody/content/application~1json/schema');
    expect(checkBody(body), JSON.stringify(checkBody.errors)).toBe(true);
    const resolved = (bodySchema.$ref ? doc.components.schemas.ResultReadyEvent : bodySchema) as {
      properties: Record<string, unknown>;
    };
    expect(Object.keys(resolved.properties)).toEqual(expect.arrayContaining(Object.keys(body)));
    expect(Object.keys(body)).toEqual(Object.keys(resolved.properties).filter((k) => k in body));
    expect(body.resultId).toBe(resultId);

    // Following the recipe as written verifies the real delivery.
    expect(webhook.description).toContain('X-Healthspan-Timestamp + "." + raw body');
    expect(webhook.description).toContain('HMAC-SHA256');
    expect(webhook.description).toContain('300 seconds');
    const timestamp = delivery.headers['x-healthspan-timestamp'] as string;
    const digest = createHmac('sha256', secret)
      .update(`${timestamp}.`)
      .update(delivery.rawBody)
      .digest('hex');
    expect(delivery.headers['x-healthspan-signature']).toBe(`v1=${digest}`);
    expect(Math.abs(Date.now() / 1000 - Number(timestamp))).toBeLessThan(300);

    // What the receiver is expected to answer: 2xx acknowledges, anything else is retried.
    expect(Object.keys(webhook.responses).sort()).toEqual(['2XX', '4XX', '5XX']);
    expect(webhook.responses['2XX']!.description).toMatch(/acknowledges/);
    expect(webhook.responses['5XX']!.description).toMatch(/retried/);
  });

  it('is the schema the sender serialises every event through', () => {
    const input = {
      resultId: '9d407152-3e6f-4081-9cad-2e3f4a5b6c73',
      submissionId: '0f6b2c1e-8d4a-4b7e-9c3f-1a2b3c4d5e6f',
      partnerSubmissionId: null,
      status: 'completed',
      completedAt: '2026-11-21T12:00:00.412Z',
    };
    const body = JSON.parse(resultReadyBody(input)) as unknown;
    const validate = validatorFor(doc)('/components/schemas/ResultReadyEvent');
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    // What the schema refuses, the sender refuses too: it never sends an undescribed body.
    expect(() => resultReadyBody({ ...input, status: 'not-a-status' })).toThrow();
    expect(() => resultReadyBody({ ...input, resultId: 'r1' })).toThrow();
  });
});

describe('the marker panel', () => {
  function markerCodeSchema() {
    const marker = doc.components.schemas.Marker as { properties: { code: Schema } };
    return marker.properties.code as { anyOf: Array<{ enum?: string[] }>; description: string };
  }

  it('lists the 14 canonical codes as an enum and a table with unit, range and aliases from the catalogue', () => {
    const code = markerCodeSchema();
    expect(code.anyOf[0]!.enum).toEqual([...MARKER_CODES]);
    for (const text of [code.description, doc.info.description]) {
      const rows = text.split('\n').filter((l) => /^\| `[A-Z0-9_]+` \|/.test(l));
      expect(rows).toHaveLength(14);
      for (const c of MARKER_CODES) {
        const row = rows.find((r) => r.startsWith(`| \`${c}\` |`));
        const m = MARKERS[c];
        expect(row, c).toContain(`| ${m.unit} | ${m.defaultRange.lower} to ${m.defaultRange.upper} |`);
        for (const [alias, target] of Object.entries(MARKER_ALIASES)) {
          if (target === c) expect(row).toContain(`\`${alias}\``);
        }
      }
    }
  });

  it('still accepts every alias, in the document and on the server', async () => {
    const account = await createAccount(service);
    const body = bodyFor(account);
    const seen = new Set<string>();
    for (const marker of body.markers as Array<{ code: string }>) {
      const alias = Object.entries(MARKER_ALIASES).find(
        ([a, target]) => target === marker.code && !seen.has(a),
      );
      if (alias) {
        seen.add(alias[0]);
        // Lower case and with a hyphen where there is an underscore: still resolved.
        marker.code = alias[0].toLowerCase().replace('_', '-');
      }
    }
    expect(seen.size).toBeGreaterThan(5);
    const validate = validatorFor(doc)('/components/schemas/SubmissionRequest');
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    const res = await postSubmission(service, body, { apiKey: account.apiKey });
    expect(res.status, JSON.stringify(res.json)).toBe(202);
  });
});

describe('examples', () => {
  it('validates every example against the schema it illustrates', () => {
    const validate = validatorFor(doc);
    const found: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const media = node as Media;
      if (media.schema && media.examples) {
        const check = validate(`${at}/schema`);
        for (const [name, example] of Object.entries(media.examples)) {
          found.push(`${at} ${name}`);
          expect(check(example.value), `${at} ${name}: ${JSON.stringify(check.errors)}`).toBe(true);
        }
      }
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${pointerPart(k)}`);
    };
    walk(doc.paths, '/paths');
    walk(doc.webhooks, '/webhooks');
    expect(found.length).toBeGreaterThan(50);
  });

  it('has one example per error code of every error response, named by its code', () => {
    for (const { path, method, op: operation } of operations(doc)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        const media = response.content!['application/json']!;
        expect(Object.keys(media.examples ?? {}).sort(), `${method} ${path} ${status}`).toEqual(
          [...codesOf(operation, status)].sort(),
        );
        for (const [code, example] of Object.entries(media.examples!)) {
          expect((example.value as { error: { code: string } }).error.code).toBe(code);
        }
      }
    }
  });

  it('shows the example submission, and accepted, detail and result examples shaped like real answers', async () => {
    const post = op('/v1/submissions', 'post');
    expect(post.requestBody!.content['application/json']!.examples!.submission!.value).toEqual(exampleBody());
    const account = await createAccount(service);
    const { submissionId, resultId } = await submitAndComplete(account);
    const replay = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    const detail = await getJson(service, `/v1/submissions/${submissionId}`, { 'x-api-key': account.apiKey });
    const result = await getJson(service, `/v1/results/${resultId}`, { 'x-api-key': account.apiKey });
    const shape = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.slice(0, 1).map(shape)
        : value && typeof value === 'object'
          ? Object.fromEntries(
              Object.entries(value)
                .sort(([a], [b]) => a.localeCompare(b))
                .map(([k, v]) => [k, shape(v)]),
            )
          : typeof value;
    const example = (o: Operation, status: string) =>
      Object.values(o.responses[status]!.content!['application/json']!.examples!)[0]!.value;
    expect(shape(example(post, '202'))).toEqual(shape(replay.json));
    expect(shape(example(op('/v1/submissions/{submissionId}'), '200'))).toEqual(shape(detail.json));
    // The list example's first item is a completed submission.
    const listed = await getJson(service, '/v1/submissions?status=completed&limit=1', {
      'x-api-key': account.apiKey,
    });
    const listExample = example(op('/v1/submissions'), '200') as { items: unknown[] };
    expect(shape(listExample.items[0])).toEqual(shape((listed.json.items as unknown[])[0]));
    // The example is the primary outcome only; `outcomes` appears when more than one is scored.
    const { outcomes: _more, ...primary } = result.json;
    expect(shape(example(op('/v1/results/{resultId}'), '200'))).toEqual(shape(primary));
  });
});

describe('errors and headers', () => {
  const DOCUMENTED_EVERYWHERE: ErrorCode[] = [
    'BAD_REQUEST',
    'REQUEST_TIMEOUT',
    'EXPECTATION_FAILED',
    'HEADERS_TOO_LARGE',
    'INTERNAL_ERROR',
  ];

  it('documents each code under its status and only the codes an operation can answer', () => {
    const all = new Set<string>();
    for (const { path, method, op: operation } of operations(doc)) {
      const codes = Object.keys(operation.responses).flatMap((s) => codesOf(operation, s));
      for (const c of codes) all.add(c);
      for (const status of Object.keys(operation.responses)) {
        for (const c of codesOf(operation, status))
          expect(String(ERROR_CODES[c as ErrorCode].status)).toBe(status);
      }
      expect(codes, `${method} ${path}`).toEqual(expect.arrayContaining(DOCUMENTED_EVERYWHERE));
      const text = JSON.stringify(operation.responses);
      if (method === 'get') {
        // No body: nothing about bodies, media types or the partner id in it (a query that can be
        // out of range, or the stream's Last-Event-ID header, is validated).
        const hasQuery = /"in":"(query|header)"/.test(JSON.stringify(operation.parameters ?? []));
        for (const c of [
          'PARTNER_ID_MISMATCH',
          ...(hasQuery && operation.security?.length !== 0 ? [] : ['VALIDATION_ERROR']),
          'PAYLOAD_TOO_LARGE',
          'UNSUPPORTED_MEDIA_TYPE',
        ]) {
          expect(codes, `${method} ${path}`).not.toContain(c);
        }
        expect(text).not.toContain('partnerId');
      }
      if (operation.security?.length === 0) {
        expect(codes, `${method} ${path}`).not.toContain('INVALID_API_KEY');
        expect(/for this (API )?key/i.test(text), `${method} ${path} mentions a key`).toBe(false);
      }
      if (!path.startsWith('/v1/')) expect(codes, `${method} ${path}`).not.toContain('RATE_LIMITED');
    }
    // Every code the service has is documented somewhere, except 405 (described in info: no operation has it).
    expect([...all].sort()).toEqual(
      Object.keys(ERROR_CODES)
        .filter((c) => c !== 'METHOD_NOT_ALLOWED')
        .sort(),
    );
    expect(doc.info.description).toContain('405 METHOD_NOT_ALLOWED');
    expect(codesOf(op('/v1/artifacts/{artifactId}/content'), '403').sort()).toEqual([
      'ACCOUNT_INACTIVE',
      'FORBIDDEN',
    ]);
    expect(codesOf(op('/v1/submissions', 'post'), '403').sort()).toEqual([
      'ACCOUNT_INACTIVE',
      'PARTNER_ID_MISMATCH',
    ]);
    expect(codesOf(op('/v1/submissions/{submissionId}'), '403')).toEqual(['ACCOUNT_INACTIVE']);
  });

  it('matches what the submission operation really answers, headers included', async () => {
    const account = await createAccount(service);
    const other = await createAccount(service);
    const key = uniqueKey();
    const first = await postSubmission(service, bodyFor(account), {
      apiKey: account.apiKey,
      idempotencyKey: key,
    });
    expectDocumented('/v1/submissions', 'post', first);
    expect(first.headers.get('location')).toBe(`/v1/submissions/${first.json.submissionId}`);
    const replay = await postSubmission(service, bodyFor(account), {
      apiKey: account.apiKey,
      idempotencyKey: key,
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expectDocumented('/v1/submissions', 'post', replay);

    const answers = [
      await postSubmission(
        service,
        bodyFor(account, (b) => delete b.subject),
        { apiKey: account.apiKey },
      ),
      await postSubmission(
        service,
        bodyFor(account, (b) => b.markers.pop()),
        { apiKey: account.apiKey },
      ),
      await postSubmission(service, bodyFor(account), { apiKey: 'hs_not_a_key' }),
      await postSubmission(service, bodyFor(other), { apiKey: account.apiKey }),
      await postSubmission(
        service,
        bodyFor(account, (b) => (b.partnerSubjectId = 'changed')),
        {
          apiKey: account.apiKey,
          idempotencyKey: key,
        },
      ),
      await postSubmission(service, null, {
        apiKey: account.apiKey,
        rawBody: JSON.stringify({ pad: 'x'.repeat(service.config.bodyLimitBytes) }),
      }),
      await postSubmission(service, null, {
        apiKey: account.apiKey,
        rawBody: 'text',
        headers: { 'content-type': 'text/plain' },
      }),
    ];
    expect(answers.map((a) => errorOfJson(a.json))).toEqual([
      'VALIDATION_ERROR',
      'SUBMISSION_VALIDATION_ERROR',
      'INVALID_API_KEY',
      'PARTNER_ID_MISMATCH',
      'IDEMPOTENCY_MISMATCH',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
    ]);
    for (const answer of answers) expectDocumented('/v1/submissions', 'post', answer);

    // A fresh account deactivated before its key is ever used (the key check caches a while).
    const gone = await createAccount(service);
    await service.store.system.accounts.setTenantActive(gone.tenantId, false, operatorOrigin('test'));
    const inactive = await postSubmission(service, bodyFor(gone), { apiKey: gone.apiKey });
    expect(errorOfJson(inactive.json)).toBe('ACCOUNT_INACTIVE');
    expectDocumented('/v1/submissions', 'post', inactive);
  });

  it('matches what the read operations and downloads really answer', async () => {
    const account = await createAccount(service);
    const { submissionId, resultId } = await submitAndComplete(account);
    const auth = { 'x-api-key': account.apiKey };
    const reads: Array<[string, string]> = [
      ['/v1/submissions/{submissionId}', `/v1/submissions/${submissionId}`],
      ['/v1/results/{resultId}', `/v1/results/${resultId}`],
      ['/v1/submissions/{submissionId}', '/v1/submissions/00000000-0000-4000-8000-000000000000'],
      ['/v1/results/{resultId}', '/v1/results/not-a-uuid'],
      ['/v1/results/{resultId}', `/v1/results/${resultId}`],
      ['/v1/submissions', '/v1/submissions?limit=1'],
      ['/v1/submissions', '/v1/submissions?limit=0&unknown=1'],
      ['/v1/partner-auth-probe', '/v1/partner-auth-probe'],
      ['/health', '/health'],
      ['/ready', '/ready'],
    ];
    for (const [template, url] of reads) expectDocumented(template, 'get', await getJson(service, url, auth));
    const noKey = await getJson(service, `/v1/results/${resultId}`);
    expect(errorOfJson(noKey.json)).toBe('INVALID_API_KEY');
    expect(noKey.headers.get('www-authenticate')).toContain('Bearer');
    expectDocumented('/v1/results/{resultId}', 'get', noKey);
    const probe = await fetch(`${service.url}/v1/partner-auth-probe`, { headers: auth });
    expect(probe.status).toBe(204);
    expectDocumented('/v1/partner-auth-probe', 'get', { status: 204, headers: probe.headers });

    const result = await getJson(service, `/v1/results/${resultId}`, auth);
    const items = (result.json.artifacts as { items: Array<{ access: { downloadUrl: string } | null }> })
      .items;
    const link = new URL(items.find((i) => i.access)!.access!.downloadUrl);
    const download = await fetch(`${service.url}${link.pathname}${link.search}`);
    expect(download.status).toBe(200);
    expect((await download.arrayBuffer()).byteLength).toBeGreaterThan(0);
    expectDocumented('/v1/artifacts/{artifactId}/content', 'get', { status: 200, headers: download.headers });
    const forged = await getJson(service, `${link.pathname}?expires=1&signature=forged`);
    expect(errorOfJson(forged.json)).toBe('FORBIDDEN');
    expectDocumented('/v1/artifacts/{artifactId}/content', 'get', forged);
  });

  it('matches the answers given before a route runs (malformed HTTP, Expect, huge headers)', async () => {
    const base = service.url;
    const cases: Array<[string, string]> = [
      ['BAD_REQUEST', 'GET /health HTTP/1.1\r\n\r\n'],
      ['EXPECTATION_FAILED', 'GET /health HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n'],
      ['HEADERS_TOO_LARGE', `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ];
    for (const [code, request] of cases) {
      const { response } = await rawRequest(base, request);
      expect(envelopeOf(response)?.code, code).toBe(code);
      const headers = Object.fromEntries(
        Object.entries(response!.headers).map(([k, v]) => [k.toLowerCase(), String(v)]),
      );
      expectDocumented('/health', 'get', {
        status: response!.status,
        json: JSON.parse(response!.body),
        headers,
      });
    }
  });

  it('declares the 429 the rate limit answers, with Retry-After and RateLimit-*', async () => {
    const limited = await startTestService({ RATE_LIMIT_PER_MINUTE: '1' });
    try {
      const account = await createAccount(limited);
      const headers = { 'x-api-key': account.apiKey };
      await getJson(limited, '/v1/submissions/00000000-0000-4000-8000-000000000000', headers);
      const refused = await getJson(limited, '/v1/submissions/00000000-0000-4000-8000-000000000000', headers);
      expect(errorOfJson(refused.json)).toBe('RATE_LIMITED');
      expect(refused.headers.get('retry-after')).not.toBeNull();
      expect(refused.headers.get('ratelimit-limit')).toBe('1');
      expectDocumented('/v1/submissions/{submissionId}', 'get', refused);

      // A key-less download is counted per address, and its 429 says so.
      const link = '/v1/artifacts/00000000-0000-4000-8000-000000000000/content?expires=1&signature=x';
      expect(errorOfJson((await getJson(limited, link)).json)).toBe('FORBIDDEN');
      const slowDown = await getJson(limited, link);
      expect(errorOfJson(slowDown.json)).toBe('RATE_LIMITED');
      expect((slowDown.json as { error: { message: string } }).error.message).toMatch(/from this address/);
      expectDocumented('/v1/artifacts/{artifactId}/content', 'get', slowDown);
    } finally {
      await limited.stop();
    }
  });
});

function errorOfJson(json: unknown): string | undefined {
  return (json as { error?: { code: string } }).error?.code;
}
