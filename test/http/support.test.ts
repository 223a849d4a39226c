import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { errorEnvelopeFor } from '../../src/http/openapi-errors.js';
import { healthSchema } from '../../src/http/schemas.js';
import { waitUntil } from '../helpers/pipeline.js';
import { errorOf, getJson, startTestService, type TestService } from '../helpers/service.js';

let service: TestService;

beforeAll(async () => {
  service = await startTestService();
});
afterAll(async () => {
  await service.stop();
});

describe('support endpoints', () => {
  it('GET /health answers ok with a timestamp and needs no key', async () => {
    const res = await getJson(service, '/health');
    expect(res.status).toBe(200);
    expect(healthSchema.parse(res.json).status).toBe('ok');
    expect(res.headers.get('x-request-id')).toMatch(/\S+/);
  });

  it('GET /ready reports ready once migrations are applied', async () => {
    const res = await getJson(service, '/ready');
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: 'ready', checks: { database: 'ok', queue: 'ok' } });
  });

  it('serves OpenAPI 3.1.0 as JSON and the same document as YAML', async () => {
    const json = await getJson(service, '/openapi.json');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/application\/json/);
    expect(json.json.openapi).toBe('3.1.0');
    expect((json.json.info as { version: string }).version).toBe('0.1.0');
    const yamlRes = await fetch(`${service.url}/openapi.yaml`);
    expect(yamlRes.status).toBe(200);
    expect(yamlRes.headers.get('content-type')).toMatch(/yaml/);
    expect(parseYaml(await yamlRes.text())).toEqual(json.json);
  });

  it('echoes a supplied x-request-id and generates one otherwise', async () => {
    const echoed = await getJson(service, '/health', { 'x-request-id': 'req-abc-123' });
    expect(echoed.headers.get('x-request-id')).toBe('req-abc-123');
    const generated = await getJson(service, '/health');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers an unknown route with 404 NOT_FOUND in the envelope', async () => {
    const res = await getJson(service, '/v1/nothing-here', { 'x-request-id': 'rid-404' });
    expect(res.status).toBe(404);
    const body = errorEnvelopeFor(['NOT_FOUND']).parse(res.json);
    expect(body.error.code).toBe('NOT_FOUND');
    expect(body.error.requestId).toBe('rid-404');
  });

  it('answers a known route with the wrong method with 405 and Allow', async () => {
    const res = await fetch(`${service.url}/v1/submissions`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toContain('POST');
    const body = errorOf((await res.json()) as Record<string, unknown>);
    expect(body.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('sends no CORS headers unless origins are configured (CORS_ALLOWED_ORIGINS)', async () => {
    const res = await fetch(`${service.url}/v1/submissions`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.status).toBe(405);
  });
});

describe('readiness', () => {
  it('answers 503 until migrations are applied, then 200', async () => {
    const fresh = await startTestService({ MIGRATE_ON_START: 'false' });
    try {
      const before = await getJson(fresh, '/ready');
      expect(before.status).toBe(503);
      expect(errorOf(before.json).code).toBe('SERVICE_UNAVAILABLE');
      expect((await getJson(fresh, '/health')).status).toBe(200);
      await fresh.store.migrate();
      // The worker's queue check turns ready at its next successful poll (within a second).
      await waitUntil(async () => (await getJson(fresh, '/ready')).status === 200, 10_000, 'readiness');
    } finally {
      await fresh.stop();
    }
  });

  it('answers 503 when the database is gone', async () => {
    const doomed = await startTestService();
    try {
      await doomed.store.driver.close();
      const res = await getJson(doomed, '/ready');
      expect(res.status).toBe(503);
      expect(errorOf(res.json).code).toBe('SERVICE_UNAVAILABLE');
    } finally {
      await doomed.app.close();
    }
  });
});
