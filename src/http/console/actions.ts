import type { FastifyInstance } from 'fastify';
import { isUuid } from '../../domain/ids.js';
import { ApiError } from '../errors.js';
import { type ConsoleOptions, checkCsrf, requireManage, signedIn, tenantOfState } from './context.js';

const REFUSED: Record<string, string> = {
  not_found: 'This submission has no result to send a callback for.',
  no_result: 'This submission has no result to send a callback for.',
  not_ready: 'The result is not ready yet: its callback is sent when it is.',
  no_endpoint: 'No callback URL is registered for this mode: nothing can be sent.',
};

/**
 * What a `manage` session may change: each action checks the CSRF token first, then the scope
 * (a `read` session is refused whatever it sends), then acts through the session's account.
 */
export async function consoleActionRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  app.post<{ Params: { id: string } }>('/submissions/:id/resend-callback', async (request, reply) => {
    const state = await signedIn(request, reply, opts);
    if (!state) return reply;
    checkCsrf(request, state, opts);
    requireManage(state);
    const tenant = tenantOfState(state);
    const id = request.params.id;
    const record = isUuid(id) ? await tenant.submissions.get(id, state.origin) : undefined;
    if (!record) throw ApiError.notFound('No submission with this id in this account and mode.');
    const sent = record.resultId
      ? await opts.callbacks.send(tenant, record.resultId, state.origin)
      : ({ ok: false, reason: 'not_ready' } as const);
    if (!sent.ok) throw new ApiError(409, 'BAD_REQUEST', REFUSED[sent.reason] ?? REFUSED.not_found!);
    return reply.code(303).header('location', `/console/submissions/${id}?callback=sent`).send();
  });
}
