/**
 * Type-checked against the types openapi-typescript generates from the served document, so a
 * change that makes them useless to a client (a lost enum, an untyped error, a missing webhook)
 * fails `npm run check:openapi`, not just one that breaks generation.
 */
import type { components, paths, webhooks } from './generated/openapi.js';

type Json<T> = T extends { content: { 'application/json': infer B } } ? B : never;
type Post = paths['/v1/submissions']['post'];

export const code: components['schemas']['Marker']['code'] = 'HBA1C_MMOL_MOL';

export const accepted: Json<Post['responses'][202]> = {
  submissionId: '0f6b2c1e-8d4a-4b7e-9c3f-1a2b3c4d5e6f',
  jobId: '6a1d4e2f-0b3c-4d5e-8f7a-9b0c1d2e3f40',
  partnerSubmissionId: 'sub-000123',
  partnerSubjectId: 'subj-9f8e7d',
  status: 'accepted',
  receivedAt: '2026-11-21T12:00:00.000Z',
};

type Conflict = Json<Post['responses'][409]>['error']['code'];
export const conflict: Conflict = 'IDEMPOTENCY_MISMATCH';
// @ts-expect-error: a read without a body cannot answer PARTNER_ID_MISMATCH.
export const notOnGet: Json<paths['/v1/results/{resultId}']['get']['responses'][403]>['error']['code'] =
  'PARTNER_ID_MISMATCH';

type Ready = webhooks['result.ready']['post'];
export const event: NonNullable<Ready['requestBody']>['content']['application/json']['eventType'] =
  'result.ready';
export const signature: Ready['parameters']['header']['X-Healthspan-Signature'] = 'v1=00';
