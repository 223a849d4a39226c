import type { FastifyReply, FastifyRequest } from 'fastify';
import { modeOfKey } from '../auth/api-keys.js';
import { emit, observed } from '../telemetry/events.js';
import { presentedKey } from './auth.js';

const SUBMISSIONS_ROUTE = '/v1/submissions';

/**
 * What one answered request reports: its metrics event (route template, never the path), the
 * door's verdict on a submission, and the end of its span. Called from the onResponse hook.
 */
export function requestTelemetry(request: FastifyRequest, reply: FastifyReply): void {
  const route = request.routeOptions.url ?? 'unmatched';
  const status = reply.statusCode;
  if (observed('http.request')) {
    emit('http.request', { method: request.method, route, status, seconds: reply.elapsedTime / 1000 });
  }
  if (route === SUBMISSIONS_ROUTE && request.method === 'POST' && observed('submission.answered')) {
    // A refused key still counts in the mode its prefix claims.
    const mode = request.principal?.mode ?? modeOfKey(presentedKey(request) ?? '');
    emit(
      'submission.answered',
      status === 202
        ? { outcome: request.submissionLog?.replayed ? 'replayed' : 'accepted', code: '', mode }
        : { outcome: 'rejected', code: request.errorCode ?? `HTTP_${status}`, mode },
    );
  }
  const span = request.traceSpan;
  if (span) {
    span.setAttributes({
      'http.response.status_code': status,
      'healthspan.tenant.id': request.principal?.tenantId,
      'healthspan.submission.id': request.submissionLog?.submissionId,
      'healthspan.error.code': request.errorCode ?? undefined,
    });
    if (status >= 500) span.fail(`HTTP_${status}`);
    span.end();
  }
}
