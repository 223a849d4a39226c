import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ComponentChildren } from 'preact';
import { z } from 'zod';
import {
  isSubjectReference,
  ledgerUnavailableText,
  listErasures,
  readErasure,
  requestErasure,
  SUBJECT_MAX,
} from '../../operations/erasures.js';
import type { ErasureRecord, TenantAccess } from '../../store/tenant-access.js';
import { ApiError } from '../errors.js';
import { type ListAnswer, listCursor, parseListQuery, readList } from '../list-query.js';
import { type ConsoleOptions, frameOf, html, requireManage, tenantOfState } from './context.js';
import { fieldErrorsOf } from './page-routes.js';
import { ConfirmErasure, ErasureDetail, Erasures } from './pages/erasures.js';
import { Layout, page } from './pages/layout.js';
import type { ConsoleState } from './session.js';
import { consoleState } from './signed-in.js';

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

const erasureListQuery = z.object({ cursor: listCursor }).strict();

/** A page of the account's erasures, newest first, by the lists' signed cursors. */
function findErasures(tenant: TenantAccess, query: unknown, opts: ConsoleOptions) {
  const { cursor } = parseListQuery(erasureListQuery, query);
  return readList(
    opts.cursors,
    { list: 'erasures', tenantId: tenant.tenantId, limit: PAGE_SIZE, cursor },
    (r) => listErasures(tenant.erasures, r),
    (erasure) => ({ at: erasure.requestedAt, id: erasure.erasureId }),
    (erasure) => erasure,
  );
}

function formOf(body: unknown): Record<string, unknown> {
  return (body ?? {}) as Record<string, unknown>;
}

/**
 * The list page; a query that is not valid (a cursor of another account, mode or list, or altered)
 * shows its message on an empty list with a `400`, as the other lists' pages do.
 */
async function listPage(
  reply: FastifyReply,
  state: ConsoleState,
  opts: ConsoleOptions,
  query: unknown,
  error?: string,
) {
  let found: ListAnswer<ErasureRecord> = { items: [], nextCursor: null };
  let listError: string | undefined;
  try {
    found = await findErasures(tenantOfState(state), query, opts);
  } catch (caught) {
    const fields = fieldErrorsOf(caught);
    if (!fields) throw caught;
    listError = Object.values(fields)[0];
    reply.code(400);
  }
  const view = {
    items: found.items,
    nextHref: found.nextCursor
      ? `/console/erasures?${new URLSearchParams({ cursor: found.nextCursor })}`
      : undefined,
    manageCsrf: state.session.scope === 'manage' ? state.csrf : undefined,
    error,
    listError,
  };
  return erasuresPage(reply, state, 'Erasures', <Erasures view={view} />);
}

/**
 * /console/erasures: the shown mode's erasures and their progress, and "Request an erasure"
 * (manage only) in two steps, the subject reference typed on each; the request goes through the
 * API's operation (`operations/erasures.ts`), audited with the session as the actor.
 */
export async function consoleErasureRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  app.get('/erasures', async (request, reply) => {
    const state = consoleState(request);
    return listPage(reply, state, opts, request.query);
  });

  app.post('/erasures/confirm', async (request, reply) => {
    const state = consoleState(request);
    requireManage(state);
    tenantOfState(state);
    const subject = formOf(request.body).subject;
    if (!isSubjectReference(subject)) {
      return listPage(reply.code(400), state, opts, {}, BAD_SUBJECT);
    }
    return erasuresPage(
      reply,
      state,
      'Confirm the erasure',
      <ConfirmErasure subject={subject} csrf={state.csrf} />,
    );
  });

  app.post('/erasures', async (request, reply) => {
    const state = consoleState(request);
    requireManage(state);
    const tenant = tenantOfState(state);
    const { subject, again } = formOf(request.body);
    if (isSubjectReference(subject) && again !== subject) {
      return erasuresPage(
        reply.code(400),
        state,
        'Confirm the erasure',
        <ConfirmErasure subject={subject} csrf={state.csrf} error={MISMATCH} />,
      );
    }
    const requested = await requestErasure(tenant.erasures, subject, state.origin);
    if (!requested.ok && requested.reason === 'ledger_unavailable') {
      request.log.error(requested.operatorMessage);
      return erasuresPage(
        reply.code(503).header('retry-after', String(requested.retryAfterSeconds)),
        state,
        'Confirm the erasure',
        <ConfirmErasure
          subject={subject as string}
          csrf={state.csrf}
          error={ledgerUnavailableText(requested.retryAfterSeconds)}
        />,
      );
    }
    if (!requested.ok) return listPage(reply.code(400), state, opts, {}, BAD_SUBJECT);
    return reply.code(303).header('location', `/console/erasures/${requested.erasure.erasureId}`).send();
  });

  app.get<{ Params: { id: string } }>('/erasures/:id', async (request, reply) => {
    const state = consoleState(request);
    const erasure = await readErasure(request.params.id, (id) => tenantOfState(state).erasures.get(id));
    if (!erasure) throw ApiError.notFound(NO_ERASURE);
    return erasuresPage(reply, state, 'Erasure', <ErasureDetail erasure={erasure} />);
  });
}
