import type { Clock } from '../clock.js';
import type { AuditOrigin } from '../domain/audit.js';
import type { ApiMode } from '../domain/mode.js';
import type { SecretBox } from '../secret-box.js';
import type { EndpointState, TenantAccess } from '../store/tenant-access.js';
import {
  type ClassifiedAddress,
  checkCallbackUrl,
  isNearbyTarget,
  type Resolver,
  resolveAllowed,
} from '../webhooks/guard.js';
import { activeSecret, apiKeyContext, secretContext, secretInEffect } from '../webhooks/secrets.js';
import { generateSigningSecret } from '../webhooks/signing.js';

/** The counts `GET /v1/webhook-endpoint` shows cover this long. */
const COUNT_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Header names a receiver key may not take: they carry the delivery itself. */
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'host',
  'user-agent',
  'connection',
  'transfer-encoding',
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const RECEIVER_KEY = /^[\x21-\x7e]{1,1024}$/;

/** The fields a request can get wrong; each caller names them its own way (body path, CLI flag). */
export type EndpointField = 'url' | 'receiverKey.header' | 'receiverKey.value';

/** A request the caller can fix: which field, and what is wrong with it (`name` is the field's name for the caller). */
export class EndpointInputError extends Error {
  constructor(
    readonly field: EndpointField,
    readonly describe: (name: string) => string,
  ) {
    super(describe(field));
  }
}

/** Whose endpoint: one partner credential of the account `tenant` is bound to, in one mode. */
export interface EndpointOwner {
  tenant: TenantAccess;
  /** The credential the endpoint belongs to (a sandbox credential for the test endpoint). */
  partnerId: string;
  mode: ApiMode;
}

/** The endpoint as its owner sees it: never a signing secret or the receiver key. */
export interface EndpointView {
  mode: ApiMode;
  url: string;
  status: 'enabled' | 'disabled';
  disabledAt: string | null;
  disabledReason: string | null;
  failingSince: string | null;
  receiverKey: { header: string } | null;
  signingSecrets: Array<{ secretId: string; activatesAt: string; active: boolean }>;
  last24Hours: { delivered: number; failed: number };
}

export interface EndpointPut {
  url: string;
  receiverKey?: { header?: string | undefined; value: string } | undefined;
}

export interface WebhookEndpointsOptions {
  allowInsecure: boolean;
  clock: Clock;
  /** DNS for the registration check; the system resolver unless a test supplies one. */
  resolve?: Resolver;
}

/**
 * The callback endpoint of a partner credential, managed by its owner: the one code path of
 * `GET/PUT/DELETE /v1/webhook-endpoint` and its actions, the operator's `webhooks` commands and
 * the console. It reaches data only through the account's tenant-scoped access; every change is
 * audited as `origin`.
 */
export class WebhookEndpoints {
  constructor(
    private readonly box: SecretBox,
    private readonly o: WebhookEndpointsOptions,
  ) {}

  /** The endpoint (the read is audited), or undefined when none is registered. */
  async get(owner: EndpointOwner, origin: AuditOrigin): Promise<EndpointView | undefined> {
    const view = await this.view(owner);
    if (view) await owner.tenant.webhookEndpoint.read(owner.partnerId, origin, this.o.clock());
    return view;
  }

  /**
   * Registers or changes the endpoint, and enables it. The signing secret in effect is kept when
   * there is one; otherwise (a new endpoint) one is made and answered in `newSecret`, once.
   * Throws `EndpointInputError` for a URL or receiver key the rules refuse.
   */
  async put(
    owner: EndpointOwner,
    input: EndpointPut,
    origin: AuditOrigin,
  ): Promise<{ created: boolean; view: EndpointView; signingSecret: string; newSecret: boolean }> {
    const now = this.o.clock();
    const url = await this.checkUrl(input.url);
    const key = checkReceiverKey(input.receiverKey);
    const { partnerId } = owner;
    let signingSecret = '';
    let newSecret = false;
    const done = await owner.tenant.webhookEndpoint.set(
      partnerId,
      {
        url,
        apiKeySealed: key ? this.box.seal(key.value, apiKeyContext(partnerId)) : null,
        apiKeyHeader: key?.header ?? null,
      },
      // Changing the URL keeps the secret the receiver already has; a first registration makes one.
      (existing) => {
        const kept = activeSecret(this.box, partnerId, existing, now);
        newSecret = kept === undefined;
        signingSecret = kept ?? generateSigningSecret();
        return newSecret ? this.box.seal(signingSecret, secretContext(partnerId)) : undefined;
      },
      origin,
      now,
    );
    // Callers name a credential of the account they hold (a verified key's, or one the operator
    // looked up): another account's is a caller's bug, not the partner's input.
    if (!done) throw new Error(`partner ${partnerId} is not a credential of this account`);
    const view = await this.view(owner);
    if (!view) throw new Error('the endpoint just written is not found');
    return { created: done.created, view, signingSecret, newSecret };
  }

  /** A new signing secret that takes effect in `activateInMs`; undefined without an endpoint. */
  async rotateSecret(
    owner: EndpointOwner,
    activateInMs: number,
    origin: AuditOrigin,
  ): Promise<{ signingSecret: string; activatesAt: string } | undefined> {
    const now = this.o.clock();
    const secret = generateSigningSecret();
    const activatesAt = new Date(now.getTime() + activateInMs);
    const sealed = this.box.seal(secret, secretContext(owner.partnerId));
    const added = await owner.tenant.webhookEndpoint.addSecret(
      owner.partnerId,
      sealed,
      activatesAt,
      origin,
      now,
    );
    return added ? { signingSecret: secret, activatesAt: activatesAt.toISOString() } : undefined;
  }

  /** Stops callbacks: the endpoint, its receiver key and secrets go; false when there was none. */
  remove(owner: EndpointOwner, origin: AuditOrigin): Promise<boolean> {
    return owner.tenant.webhookEndpoint.remove(owner.partnerId, origin, this.o.clock());
  }

  /** Enables a disabled endpoint (held events wait for a recovery); undefined without one. */
  async enable(owner: EndpointOwner, origin: AuditOrigin): Promise<EndpointView | undefined> {
    const enabled = await owner.tenant.webhookEndpoint.enable(owner.partnerId, origin, this.o.clock());
    return enabled ? this.view(owner) : undefined;
  }

  private async view(owner: EndpointOwner): Promise<EndpointView | undefined> {
    const now = this.o.clock();
    const since = new Date(now.getTime() - COUNT_WINDOW_MS);
    const state = await owner.tenant.webhookEndpoint.state(owner.partnerId, since);
    return state ? viewOf(state, owner.mode, now) : undefined;
  }

  /** The URL as stored, after the guard's checks of its form and of what its name resolves to now. */
  private async checkUrl(url: string): Promise<string> {
    const checked = checkCallbackUrl(url, { allowInsecure: this.o.allowInsecure });
    if (!checked.ok) throw urlRefused(url, checked.reason);
    const resolved = await resolveAllowed(checked.url.hostname, {
      allowInsecure: this.o.allowInsecure,
      ...(this.o.resolve ? { lookup: this.o.resolve } : {}),
    });
    if (!resolved.ok) throw urlRefused(url, resolved.reason, resolved.addresses);
    return checked.url.href;
  }
}

/**
 * A refused callback URL; one on this machine or a private network also points to what does
 * reach it: `healthspan listen` forwards test events there without a public URL.
 */
function urlRefused(
  url: string,
  reason: string,
  resolved: readonly ClassifiedAddress[] = [],
): EndpointInputError {
  if (!isNearbyTarget(url, resolved)) return new EndpointInputError('url', () => reason);
  // Never a user name or password the URL may carry (refused above, and not to be repeated).
  const { origin, pathname } = new URL(url);
  const hint = `To receive test events on your own machine, run npx healthspan listen --forward-to ${origin}${pathname} with a test key (from @healthspan/client): it forwards them there without a public URL.`;
  return new EndpointInputError('url', () => `${reason} ${hint}`);
}

function checkReceiverKey(
  key: EndpointPut['receiverKey'],
): { header: string | null; value: string } | undefined {
  if (key === undefined) return undefined;
  const header = key.header;
  if (
    header !== undefined &&
    (!TOKEN.test(header) || RESERVED_HEADERS.has(header.toLowerCase()) || /^x-healthspan-/i.test(header))
  ) {
    throw new EndpointInputError(
      'receiverKey.header',
      (name) => `${name} "${header}" is not a header name a receiver key can use`,
    );
  }
  if (!RECEIVER_KEY.test(key.value)) {
    throw new EndpointInputError(
      'receiverKey.value',
      (name) => `${name} must be 1 to 1024 printable characters without spaces`,
    );
  }
  return { header: header ?? null, value: key.value };
}

function viewOf(state: EndpointState, mode: ApiMode, now: Date): EndpointView {
  const inEffect = secretInEffect(state.secrets, now);
  return {
    mode,
    url: state.url,
    status: state.status,
    disabledAt: state.disabledAt,
    disabledReason: state.disabledReason,
    failingSince: state.failingSince,
    receiverKey: state.receiverKeyHeader ? { header: state.receiverKeyHeader } : null,
    signingSecrets: state.secrets.map((s) => ({
      secretId: s.id,
      activatesAt: s.activatesAt,
      active: s.id === inEffect?.id,
    })),
    last24Hours: state.attempts,
  };
}

/** What the API's routes and the console call: the service, without its construction. */
export type WebhookEndpointService = Pick<
  WebhookEndpoints,
  'get' | 'put' | 'rotateSecret' | 'remove' | 'enable'
>;
