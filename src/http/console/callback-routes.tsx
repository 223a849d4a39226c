import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ComponentChildren } from 'preact';
import {
  type EndpointField,
  EndpointInputError,
  type EndpointOwner,
} from '../../operations/callback-endpoint.js';
import { redeliverEvent } from '../../operations/event-resend.js';
import { ApiError } from '../errors.js';
import { findEvents, parseEventListQuery, readEvent } from '../event-list.js';
import { readRecovery, recoveryWindow, startRecovery } from '../event-resend.js';
import type { EventPage } from '../event-schemas.js';
import { REDELIVERY_REFUSED } from './actions.js';
import {
  activateInMs,
  endpointInput,
  formErrorsOf,
  formState,
  formValues,
  utcTime,
} from './callback-forms.js';
import { type ConsoleOptions, frameOf, html, requireManage, tenantOfState } from './context.js';
import { fieldErrorsOf, filtersOf } from './page-routes.js';
import {
  EMPTY_FORM,
  EndpointSection,
  type EventFilters,
  EventList,
  type FormState,
  NewSecret,
  RecoverForm,
} from './pages/callbacks.js';
import { EventView, RecoveryView } from './pages/event.js';
import { Layout, page } from './pages/layout.js';
import type { ConsoleState } from './session.js';
import { consoleState } from './signed-in.js';

const NO_ENDPOINT = 'No callback URL is set for this mode: set one first.';

const FORM_FIELD: Record<EndpointField, string> = {
  url: 'url',
  'receiverKey.header': 'receiverKeyHeader',
  'receiverKey.value': 'receiverKeyValue',
};
const FORM_LABEL: Record<EndpointField, string> = {
  url: 'The URL',
  'receiverKey.header': 'The receiver key header',
  'receiverKey.value': 'The receiver key',
};

const NOTICES: Record<string, string> = {
  saved: 'The callback URL was saved. The signing secret your receiver has stays in effect.',
  enabled:
    'The callback endpoint is enabled: new events are sent again. Recover a window to send the held ones.',
};

/** The credential whose endpoint the session manages in the mode shown (the API key's own, there). */
async function ownerOf(state: ConsoleState): Promise<EndpointOwner> {
  const tenant = tenantOfState(state);
  const partnerId = await tenant.webhookEndpoint.credentialFor(state.session.keyId);
  if (partnerId === undefined)
    throw ApiError.notFound('This account has no credential to set callbacks for.');
  return { tenant, partnerId, mode: frameOf(state, 'callbacks').mode };
}

function callbackPage(reply: FastifyReply, state: ConsoleState, title: string, body: ComponentChildren) {
  return html(
    reply,
    page(
      title,
      <Layout frame={frameOf(state, 'callbacks')} title={title}>
        {body}
      </Layout>,
    ),
  );
}

interface PageParts {
  form?: FormState;
  recover?: FormState;
  notice?: string | undefined;
  secret?: { signingSecret: string; activatesAt: string };
  query?: unknown;
}

/** The events page of the filters asked for, or the filters' problems (the page answers `400`). */
async function eventsOf(state: ConsoleState, opts: ConsoleOptions, reply: FastifyReply, query: unknown) {
  const filters = filtersOf(query);
  try {
    const q = parseEventListQuery({ ...filters, limit: filters.limit ?? '25' });
    const list: EventPage = await findEvents(tenantOfState(state), q, state.origin, opts);
    return { filters, list, errors: {} };
  } catch (error) {
    const errors = fieldErrorsOf(error);
    if (!errors) throw error;
    reply.code(400);
    return { filters, list: undefined, errors };
  }
}

/** /console/callbacks: the endpoint (its forms for `manage`), recovery, and the events list. */
async function callbacksPage(
  reply: FastifyReply,
  state: ConsoleState,
  opts: ConsoleOptions,
  parts: PageParts,
) {
  const owner = await ownerOf(state);
  const endpoint = await opts.endpoints.get(owner, state.origin);
  const events = await eventsOf(state, opts, reply, parts.query);
  const manage = state.session.scope === 'manage' ? state.csrf : undefined;
  return callbackPage(
    reply,
    state,
    'Callbacks',
    <>
      {parts.secret ? (
        <NewSecret
          secret={parts.secret.signingSecret}
          activatesAt={parts.secret.activatesAt}
          secretId={
            endpoint?.signingSecrets.find((s) => s.activatesAt === parts.secret?.activatesAt)?.secretId
          }
        />
      ) : null}
      <EndpointSection
        endpoint={endpoint}
        manageCsrf={manage}
        form={parts.form ?? EMPTY_FORM}
        notice={parts.notice}
        now={opts.clock()}
      />
      {manage !== undefined && endpoint ? (
        <RecoverForm csrf={manage} form={parts.recover ?? EMPTY_FORM} />
      ) : null}
      <EventList filters={events.filters as EventFilters} page={events.list} errors={events.errors} />
    </>,
  );
}

/** A state-changing request's session (its CSRF token checked by the hook), after its scope is. */
function managing(request: FastifyRequest) {
  const state = consoleState(request);
  requireManage(state);
  return state;
}

async function setUrl(request: FastifyRequest, reply: FastifyReply, opts: ConsoleOptions) {
  const state = managing(request);
  const values = formValues(request.body);
  try {
    const put = await opts.endpoints.put(await ownerOf(state), endpointInput(values), state.origin);
    if (!put.newSecret) return reply.code(303).header('location', '/console/callbacks?saved=1').send();
    const secret = {
      signingSecret: put.signingSecret,
      activatesAt: put.view.signingSecrets[0]?.activatesAt ?? '',
    };
    return callbacksPage(reply.code(201), state, opts, { secret, notice: 'The callback URL was saved.' });
  } catch (error) {
    const errors =
      error instanceof EndpointInputError
        ? { [FORM_FIELD[error.field]]: error.describe(FORM_LABEL[error.field]) }
        : formErrorsOf(error, 'url');
    if (!errors) throw error;
    const { receiverKeyValue: _dropped, ...shown } = values;
    return callbacksPage(reply.code(400), state, opts, { form: formState(shown, errors) });
  }
}

async function rotate(request: FastifyRequest, reply: FastifyReply, opts: ConsoleOptions) {
  const state = managing(request);
  const ms = activateInMs(formValues(request.body));
  const rotated = await opts.endpoints.rotateSecret(await ownerOf(state), ms, state.origin);
  if (!rotated) throw ApiError.notFound(NO_ENDPOINT);
  return callbacksPage(reply, state, opts, { secret: rotated });
}

async function recover(request: FastifyRequest, reply: FastifyReply, opts: ConsoleOptions) {
  const state = managing(request);
  const values = formValues(request.body);
  const since = utcTime(values.since) ?? '';
  const until = utcTime(values.until);
  try {
    const window = recoveryWindow(until === undefined ? { since } : { since, until });
    const started = await startRecovery(opts.events, tenantOfState(state), window, state.origin);
    return reply.code(303).header('location', `/console/callbacks/recoveries/${started.recoveryId}`).send();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'WEBHOOK_NOT_CONFIGURED') {
      throw new ApiError(409, error.code, REDELIVERY_REFUSED.no_endpoint);
    }
    if (error instanceof ApiError && error.code === 'WEBHOOK_ENDPOINT_DISABLED') {
      throw new ApiError(409, error.code, REDELIVERY_REFUSED.endpoint_disabled);
    }
    const errors = formErrorsOf(error, 'since');
    if (!errors) throw error;
    return callbacksPage(reply.code(400), state, opts, { recover: formState(values, errors) });
  }
}

async function redeliver(
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
  opts: ConsoleOptions,
) {
  const state = managing(request);
  const id = request.params.id;
  const sent = await redeliverEvent(opts.events, tenantOfState(state), id, state.origin);
  if (!sent.ok && sent.reason === 'not_found')
    throw ApiError.notFound('No event with this id in this account.');
  if (!sent.ok) throw new ApiError(409, 'BAD_REQUEST', REDELIVERY_REFUSED[sent.reason]);
  return reply.code(303).header('location', `/console/callbacks/events/${id}?redelivered=1`).send();
}

/** The Callbacks pages: the API's endpoint, events and recovery services, through the session's account. */
export async function consoleCallbackRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  app.get('/callbacks', async (request, reply) => {
    const state = consoleState(request);
    const q = request.query as Record<string, unknown>;
    const notice = q.saved === '1' ? NOTICES.saved : q.enabled === '1' ? NOTICES.enabled : undefined;
    const { saved: _s, enabled: _e, ...filters } = q;
    return callbacksPage(reply, state, opts, { notice, query: filters });
  });
  app.post('/callbacks/endpoint', (request, reply) => setUrl(request, reply, opts));
  app.post('/callbacks/rotate-secret', (request, reply) => rotate(request, reply, opts));
  app.post('/callbacks/enable', async (request, reply) => {
    const state = managing(request);
    if (!(await opts.endpoints.enable(await ownerOf(state), state.origin)))
      throw ApiError.notFound(NO_ENDPOINT);
    return reply.code(303).header('location', '/console/callbacks?enabled=1').send();
  });
  app.post('/callbacks/recover', (request, reply) => recover(request, reply, opts));
  app.get<{ Params: { id: string } }>('/callbacks/events/:id', async (request, reply) => {
    const state = consoleState(request);
    const event = await readEvent(tenantOfState(state), request.params.id, state.origin);
    const manage = state.session.scope === 'manage' ? state.csrf : undefined;
    const redelivered = (request.query as Record<string, unknown>).redelivered === '1';
    return callbackPage(
      reply,
      state,
      `Callback for ${event.partnerSubmissionId}`,
      <EventView event={event} manageCsrf={manage} redelivered={redelivered} />,
    );
  });
  app.post<{ Params: { id: string } }>('/callbacks/events/:id/redeliver', (request, reply) =>
    redeliver(request, reply, opts),
  );
  app.get<{ Params: { id: string } }>('/callbacks/recoveries/:id', async (request, reply) => {
    const state = consoleState(request);
    const recovery = await readRecovery(tenantOfState(state), request.params.id, state.origin);
    return callbackPage(reply, state, 'Recovery', <RecoveryView recovery={recovery} />);
  });
}
