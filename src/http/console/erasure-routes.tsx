import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ComponentChildren } from 'preact';
import { isUuid } from '../../domain/ids.js';
import type { ErasureCursor } from '../../store/tenant-access.js';
import { ApiError } from '../errors.js';
import { isSubjectReference, SUBJECT_MAX } from '../routes/erasures.js';
import {
  type ConsoleOptions,
  checkCsrf,
  frameOf,
  html,
  requireManage,
  signedIn,
  tenantOfState,
} from './context.js';
import { ConfirmErasure, ErasureDetail, Erasures } from './pages/erasures.js';
import { Layout, page } from './pages/layout.js';
import type { ConsoleState } from './session.js';

const PAGE_SIZE = 50;
const NO_ERASURE = 'No erasure with this id in this account.';
const BAD_SUBJECT = `Type the subject reference: 1 to ${SUBJECT_MAX} characters.`;
const MISMATCH = 'The two subject references are not the same. Type it again, exactly as on the first step.';

function erasuresPage(reply: FastifyReply, state: ConsoleState, title: string, body: ComponentChildren) {
  return html(
    reply,
    page(
      title,
      <Layout frame={frameOf(state, 'erasures')} title={title}>
        {body}
      </Layout>,
    ),
  );
}

function encodeCursor(c: ErasureCursor): string {
  return Buffer.from(JSON.stringify([c.requestedAt, c.erasureId]), 'utf8').toString('base64url');
}

/** The page's starting point, or a `400` page for a link that was not one of ours. */
function decodeCursor(text: unknown): ErasureCursor | undefined {
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(String(text), 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2) {
      const [requestedAt, erasureId] = value as unknown[];
      if (typeof requestedAt === 'string' && !Number.isNaN(Date.parse(requestedAt))) {
        if (typeof erasureId === 'string' && isUuid(erasureId)) return { requestedAt, erasureId };
      }
    }
  } catch {
    // Not ours: refused below.
  }
  throw new ApiError(400, 'BAD_REQUEST', 'This page link is not valid: start again from the erasures page.');
}

function formOf(body: unknown): Record<string, unknown> {
  return (body ?? {}) as Record<string, unknown>;
}

async function listPage(reply: FastifyReply, state: ConsoleState, cursor: unknown, error?: string) {
  const found = await tenantOfState(state).erasures.list({ limit: PAGE_SIZE, after: decodeCursor(cursor) });
  const last = found.items.at(-1);
  const view = {
    items: found.items,
    nextHref:
      found.more && last
        ? `/console/erasures?cursor=${encodeCursor({ requestedAt: last.requestedAt, erasureId: last.erasureId })}`
        : undefined,
    manageCsrf: state.session.scope === 'manage' ? state.csrf : undefined,
    error,
  };
  return erasuresPage(reply, state, 'Erasures', <Erasures view={view} />);
}

/**
 * /console/erasures: the shown mode's erasures and their progress, and "Request an erasure"
 * (manage only) in two steps, the subject reference typed on each; the request goes through the
 * API's service (`TenantAccess.erasures.request`), audited with the session as the actor.
 */
export async function consoleErasureRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  app.get('/erasures', async (request, reply) => {
    const state = await signedIn(request, reply, opts);
    if (!state) return reply;
    return listPage(reply, state, (request.query as Record<string, unknown>).cursor);
  });

  app.post('/erasures/confirm', async (request, reply) => {
    const state = await signedIn(request, reply, opts);
    if (!state) return reply;
    checkCsrf(request, state, opts);
    requireManage(state);
    tenantOfState(state);
    const subject = formOf(request.body).subject;
    if (typeof subject !== 'string' || !isSubjectReference(subject)) {
      return listPage(reply.code(400), state, undefined, BAD_SUBJECT);
    }
    return erasuresPage(
      reply,
      state,
      'Confirm the erasure',
      <ConfirmErasure subject={subject} csrf={state.csrf} />,
    );
  });

  app.post('/erasures', async (request, reply) => {
    const state = await signedIn(request, reply, opts);
    if (!state) return reply;
    checkCsrf(request, state, opts);
    requireManage(state);
    const tenant = tenantOfState(state);
    const { subject, again } = formOf(request.body);
    if (typeof subject !== 'string' || !isSubjectReference(subject)) {
      return listPage(reply.code(400), state, undefined, BAD_SUBJECT);
    }
    if (again !== subject) {
      return erasuresPage(
        reply.code(400),
        state,
        'Confirm the erasure',
        <ConfirmErasure subject={subject} csrf={state.csrf} error={MISMATCH} />,
      );
    }
    const erasure = await tenant.erasures.request(subject, state.origin);
    return reply.code(303).header('location', `/console/erasures/${erasure.erasureId}`).send();
  });

  app.get<{ Params: { id: string } }>('/erasures/:id', async (request, reply) => {
    const state = await signedIn(request, reply, opts);
    if (!state) return reply;
    const id = request.params.id;
    const erasure = isUuid(id) ? await tenantOfState(state).erasures.get(id) : undefined;
    if (!erasure) throw ApiError.notFound(NO_ERASURE);
    return erasuresPage(reply, state, 'Erasure', <ErasureDetail erasure={erasure} />);
  });
}
