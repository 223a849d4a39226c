import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ComponentChildren } from 'preact';
import { durationMs } from '../../domain/duration.js';
import { isUuid } from '../../domain/ids.js';
import {
  issueAccountKey,
  type KeyRefusal,
  type KeyRequest,
  revokeAccountKey,
} from '../../operations/keys.js';
import type { TenantAccess } from '../../store/tenant-access.js';
import { ApiError } from '../errors.js';
import { type ConsoleOptions, frameOf, html, requireManage } from './context.js';
import { CreatedKey, KEY_LIFETIMES, Keys, type KeysView, RevokeKey } from './pages/keys.js';
import { Layout, page } from './pages/layout.js';
import type { ConsoleState } from './session.js';
import { consoleState } from './signed-in.js';

const NO_KEY = 'No API key with this id in this account.';

/** Why the console issued no key, in its words (a test key's session is a sandbox's). */
const KEY_REFUSED: Record<KeyRefusal, string> = {
  live_from_test: 'A session opened with a test key can only create test keys.',
  no_credential: 'This session cannot create that key.',
  no_lifetime: 'This session cannot create that key.',
};

/**
 * The keys of the account the session was opened for, whatever mode the console shows: a live
 * key's session sees and issues both modes' keys, a test key's session its sandbox's only.
 */
function keysOf(state: ConsoleState, opts: ConsoleOptions): TenantAccess['keys'] {
  return opts.tenants.forTenant(state.session.tenantId).keys;
}

async function viewOf(state: ConsoleState, opts: ConsoleOptions, notice?: string): Promise<KeysView> {
  return {
    keys: await keysOf(state, opts).list(),
    now: opts.clock(),
    sessionKeyId: state.session.keyId,
    manageCsrf: state.session.scope === 'manage' ? state.csrf : undefined,
    liveAllowed: state.session.keyMode === 'live',
    notice,
  };
}

function keysPage(reply: FastifyReply, state: ConsoleState, title: string, body: ComponentChildren) {
  return html(
    reply,
    page(
      title,
      <Layout frame={frameOf(state, 'keys')} title={title}>
        {body}
      </Layout>,
    ),
  );
}

/** The form's mode and lifetime, or a `400` in plain words. */
function newKeyOf(body: unknown): KeyRequest {
  const form = (body ?? {}) as Record<string, unknown>;
  const mode = form.mode;
  const expiresIn = typeof form.expiresIn === 'string' ? form.expiresIn : '';
  if ((mode !== 'live' && mode !== 'test') || !KEY_LIFETIMES.some((l) => l.value === expiresIn)) {
    throw new ApiError(400, 'BAD_REQUEST', 'Choose a mode and a lifetime from the lists.');
  }
  return { mode, lifetimeMs: expiresIn === '' ? null : (durationMs(expiresIn) ?? 0) };
}

/** The key named in the address when it is this account's, else a `404` page. */
async function ownedKey(state: ConsoleState, opts: ConsoleOptions, keyId: string) {
  const found = isUuid(keyId) ? (await keysOf(state, opts).list()).find((k) => k.keyId === keyId) : undefined;
  if (!found) throw ApiError.notFound(NO_KEY);
  return found;
}

/** /console/keys: the list, "Create a key" (shown once) and "Revoke" with a confirmation step. */
export async function consoleKeyRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  app.get('/keys', async (request, reply) => {
    const state = consoleState(request);
    const revoked = (request.query as Record<string, unknown>).revoked === '1';
    const view = await viewOf(state, opts, revoked ? 'The key was revoked.' : undefined);
    return keysPage(reply, state, 'API keys', <Keys view={view} />);
  });

  app.post('/keys', async (request, reply) => {
    const state = consoleState(request);
    requireManage(state);
    const wanted = newKeyOf(request.body);
    const made = await issueAccountKey(keysOf(state, opts), state.session.keyId, wanted, {
      now: opts.clock(),
      origin: state.origin,
    });
    if (!made.ok) throw new ApiError(403, 'FORBIDDEN', KEY_REFUSED[made.reason]);
    const view = await viewOf(state, opts);
    return keysPage(
      reply.code(201),
      state,
      'API keys',
      <>
        <CreatedKey apiKey={made.key.apiKey} mode={made.key.mode} expiresAt={made.key.expiresAt} />
        <Keys view={view} />
      </>,
    );
  });

  app.get<{ Params: { id: string } }>('/keys/:id/revoke', async (request, reply) => {
    const state = consoleState(request);
    requireManage(state);
    const item = await ownedKey(state, opts, request.params.id);
    if (item.revokedAt !== null) return reply.code(303).header('location', '/console/keys').send();
    const own = item.keyId === state.session.keyId;
    return keysPage(reply, state, 'Revoke a key', <RevokeKey item={item} csrf={state.csrf} ownKey={own} />);
  });

  app.post<{ Params: { id: string } }>('/keys/:id/revoke', async (request, reply) => {
    const state = consoleState(request);
    requireManage(state);
    const done = await revokeAccountKey(keysOf(state, opts), request.params.id, {
      origin: state.origin,
      revoked: opts.keysChanged,
    });
    if (!done) throw ApiError.notFound(NO_KEY);
    // Revoking this session's own key ends the session at this next request (its sign-in page).
    return reply.code(303).header('location', '/console/keys?revoked=1').send();
  });
}
