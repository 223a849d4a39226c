import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  exampleBody,
  getJson,
  postSubmission,
  startTestService,
  type TestService,
} from '../helpers/service.js';

type OpenApi = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, { security?: unknown[]; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, object> };
};

let service: TestService;
let doc: OpenApi;

beforeAll(async () => {
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' });
  doc = (await getJson(service, '/openapi.json')).json as unknown as OpenApi;
});
afterAll(async () => {
  await service.stop();
});

function ajvFor(document: OpenApi) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'doc', components: document.components });
  return (name: string) => ajv.getSchema(`doc#/components/schemas/${name}`)!;
}

describe('the served OpenAPI document', () => {
  it('is a valid OpenAPI 3.1.0 document, version 0.1.0', async () => {
    const result = await new Validator().validate(doc as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('0.1.0');
  });

  it('describes every route the server answers, and no route it does not', () => {
    const served = service.app.routeTable
      .filter((r) => r.method !== 'HEAD' && r.method !== 'OPTIONS' && !r.url.includes('*'))
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`))
      .sort();
    expect(documented).toEqual(served);
  });

  it('marks /v1 operations as needing a key, with their error statuses, and support routes as open', () => {
    for (const [p, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (p.startsWith('/v1/artifacts/')) {
          // The signed link is the credential.
          expect(op.security, `${method} ${p}`).toEqual([]);
          expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '403', '404']));
        } else if (p.startsWith('/v1/')) {
          expect(op.security, `${method} ${p}`).toBeUndefined();
          for (const status of ['401', '429', '500']) expect(Object.keys(op.responses)).toContain(status);
        } else {
          expect(op.security, `${method} ${p}`).toEqual([]);
        }
      }
    }
    expect(Object.keys(doc.paths['/v1/submissions']!.post!.responses).sort()).toEqual(
      ['202', '400', '401', '403', '409', '413', '415', '429', '500'].sort(),
    );
    expect(Object.keys(doc.paths['/v1/submissions/{submissionId}']!.get!.responses)).toContain('404');
    expect(Object.keys(doc.paths['/v1/partner-auth-probe']!.get!.responses)).toContain('204');
    expect(Object.keys(doc.paths['/v1/results/{resultId}']!.get!.responses)).toEqual(
      expect.arrayContaining(['200', '401', '404']),
    );
  });

  it('accepts the example body and rejects a wrong one with the request schema', () => {
    const validate = ajvFor(doc)('SubmissionRequest');
    expect(validate(exampleBody()), JSON.stringify(validate.errors)).toBe(true);
    const bad = exampleBody() as { subject: { demographics: Record<string, unknown> } };
    bad.subject.demographics.sexAtBirth = 'other';
    expect(validate(bad)).toBe(false);
  });

  it('describes the bodies the server really sends', async () => {
    const schema = ajvFor(doc);
    const account = await createAccount(service);
    const accepted = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    expect(schema('AcceptedSubmission')(accepted.json)).toBe(true);
    const detail = await getJson(service, `/v1/submissions/${accepted.json.submissionId}`, {
      'x-api-key': account.apiKey,
    });
    const validateDetail = schema('SubmissionDetail');
    expect(validateDetail(detail.json), JSON.stringify(validateDetail.errors)).toBe(true);
    const invalid = await postSubmission(
      service,
      bodyFor(account, (b) => delete b.subject),
      { apiKey: account.apiKey },
    );
    expect(schema('ErrorEnvelope')(invalid.json)).toBe(true);
    const panel = await postSubmission(
      service,
      bodyFor(account, (b) => b.markers.pop()),
      { apiKey: account.apiKey },
    );
    expect(schema('ErrorEnvelope')(panel.json)).toBe(true);
    expect(schema('Health')((await getJson(service, '/health')).json)).toBe(true);

    const done = await waitUntil(async () => {
      const d = await getJson(service, `/v1/submissions/${accepted.json.submissionId}`, {
        'x-api-key': account.apiKey,
      });
      return d.json.status === 'completed' && d.json;
    });
    const result = await getJson(service, `/v1/results/${done.resultId}`, { 'x-api-key': account.apiKey });
    const validateResult = schema('Result');
    expect(validateResult(result.json), JSON.stringify(validateResult.errors)).toBe(true);
  });
});
