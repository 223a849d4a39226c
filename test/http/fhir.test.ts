import type { Bundle, Observation, Patient } from '@medplum/fhirtypes';
import { describe, expect, it } from 'vitest';
import { cliFor } from '../helpers/cli.js';
import { completeSubmission } from '../helpers/pipeline.js';
import { createAccount, getJson, serviceWithReceiver } from '../helpers/service.js';
import { bundleErrors } from '../reports/fhir-validator.js';

/**
 * `GET /v1/results/{id}/fhir` on a real server and the real pipeline: the document read through
 * the API is checked by a real R4 validator, is the same on every read, is audited, and is
 * scoped like every other read (another account's ids and the other mode's ids answer 404).
 */
const ctx = serviceWithReceiver();

async function readFhir(resultId: string, apiKey: string) {
  const res = await fetch(`${ctx.service.url}/v1/results/${resultId}/fhir`, {
    headers: { 'x-api-key': apiKey, accept: 'application/fhir+json' },
  });
  return { status: res.status, contentType: res.headers.get('content-type'), text: await res.text() };
}

describe('GET /v1/results/{resultId}/fhir', () => {
  it('answers a FHIR R4 Bundle the validator finds no error in, the same bytes on every read', async () => {
    const account = await createAccount(ctx.service);
    const resultId = await completeSubmission(ctx.service, account);
    const first = await readFhir(resultId, account.apiKey);
    expect(first.status).toBe(200);
    expect(first.contentType).toMatch(/^application\/fhir\+json/);
    const bundle = JSON.parse(first.text) as Bundle;
    expect(bundleErrors(bundle)).toEqual([]);
    expect(bundle.type).toBe('collection');
    const patient = bundle.entry?.find((e) => e.resource?.resourceType === 'Patient')?.resource as Patient;
    expect(patient.identifier?.[0]?.system).toBe(`urn:healthspan:partner:${account.partnerId}:subject`);
    const labs = (bundle.entry ?? [])
      .map((e) => e.resource)
      .filter(
        (r): r is Observation =>
          r?.resourceType === 'Observation' && r.category?.[0]?.coding?.[0]?.code === 'laboratory',
      );
    expect(labs).toHaveLength(14);
    expect(bundle.entry?.filter((e) => e.resource?.resourceType === 'RiskAssessment').length).toBeGreaterThan(
      0,
    );

    expect((await readFhir(resultId, account.apiKey)).text).toBe(first.text);
    // Each export is in the account's audit trail.
    const audit = await getJson(ctx.service, '/v1/audit-events?limit=100', {
      'x-api-key': account.apiKey,
    });
    const exports = (audit.json.items as Array<{ action: string; resourceId: string }>).filter(
      (e) => e.action === 'result.exported' && e.resourceId === resultId,
    );
    expect(exports).toHaveLength(2);
  });

  it('answers 404 for another account’s result, the other mode’s and an id that is not one', async () => {
    const owner = await createAccount(ctx.service);
    const other = await createAccount(ctx.service);
    const resultId = await completeSubmission(ctx.service, owner);
    const testKey = (
      await cliFor(ctx.service, ['keys', 'create', '--partner', owner.partnerId, '--mode', 'test'])
    ).json!.apiKey as string;
    for (const key of [other.apiKey, testKey]) {
      const res = await readFhir(resultId, key);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.text)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    }
    expect((await readFhir('not-a-uuid', owner.apiKey)).status).toBe(404);
    expect((await readFhir(resultId, 'hs_live_nope')).status).toBe(401);
  });
});
