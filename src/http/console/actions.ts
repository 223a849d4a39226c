import type { FastifyInstance } from 'fastify';
import { isUuid } from '../../domain/ids.js';
import type { ResendRefusal } from '../../store/tenant-access.js';
import { eventIdFor } from '../../webhooks/outbox.js';
import { ApiError } from '../errors.js';
import { type ConsoleOptions, requireManage, tenantOfState } from './context.js';
import { consoleState } from './signed-in.js';

/** Why an event cannot be sent again, in the console's words (its pages, not the API's paths). */
export const REDELIVERY_REFUSED: Record<ResendRefusal, string> = {
  not_found: 'This submission has no callback event yet: it is recorded when the result completes.',
  no_endpoint: 'No callback URL is set for this mode: set one on the Callbacks page first.',
  endpoint_disabled:
    'Your callback endpoint is disabled after failing for days: enable it on the Callbacks page first.',
};

/**
 * What a `manage` session may change: each action checks the CSRF token first, then the scope
 * (a `read` session is refused whatever it sends), then acts through the session's account.
 */
export async function consoleActionRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  app.post<{ Params: { id: string } }>('/submissions/:id/resend-callback', async (request, reply) => {
    const state = consoleState(request);
    requireManage(state);
    const tenant = tenantOfState(state);
    const id = request.params.id;
    const record = isUuid(id) ? await tenant.submissions.get(id, state.origin) : undefined;
    if (!record) throw ApiError.notFound('No submission with this id in this account and mode.');
    if (!record.resultId) {
      throw new ApiError(409, 'BAD_REQUEST', 'The result is not ready yet: its callback is sent when it is.');
    }
    // The result's event, sent again as POST /v1/events/{id}/redeliver does (same id, same rules).
    const sent = await opts.events.redeliver(tenant, eventIdFor(record.resultId), state.origin);
    if (!sent.ok) throw new ApiError(409, 'BAD_REQUEST', REDELIVERY_REFUSED[sent.reason]);
    return reply.code(303).header('location', `/console/submissions/${id}?callback=sent`).send();
  });
}
