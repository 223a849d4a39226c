import type { Client } from 'openapi-fetch';
import type { components, paths } from './generated/openapi.js';

export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
/** The endpoint as registered; `signingSecret` only when the request made one (a new endpoint). */
export type WebhookEndpointSet = components['schemas']['WebhookEndpointSet'];
export type WebhookEndpointPut = components['schemas']['WebhookEndpointPut'];
export type WebhookSecretRotated = components['schemas']['WebhookSecretRotated'];

/** One attempt of a request: the body of a 2xx, or a typed error. */
type Call = <T>(send: () => Promise<{ data?: T; error?: unknown; response: Response }>) => Promise<T>;
/** The client's retries, for requests that are safe to repeat. */
type Retry = <T>(attempt: () => Promise<T>) => Promise<T>;

/**
 * `client.webhookEndpoint`: the callback endpoint of the key's mode (a test key manages the
 * test endpoint). Reads, the PUT and enabling are retried like other safe requests; a rotation
 * or a delete is sent once (a retried rotation would make a second secret).
 */
export function webhookEndpointClient(api: Client<paths>, call: Call, retry: Retry) {
  return {
    /** URL, status, receiver-key header, secrets' ids and the last 24 hours; `NOT_FOUND` when none. */
    get(): Promise<WebhookEndpoint> {
      return retry(() => call(() => api.GET('/v1/webhook-endpoint')));
    },

    /** Registers or changes the endpoint and enables it; a new one answers its `signingSecret` once. */
    put(body: WebhookEndpointPut): Promise<WebhookEndpointSet> {
      return retry(() => call(() => api.PUT('/v1/webhook-endpoint', { body })));
    },

    /** Stops callbacks: the endpoint, its receiver key and secrets are removed. */
    async delete(): Promise<void> {
      await call(() => api.DELETE('/v1/webhook-endpoint'));
    },

    /** A new signing secret, answered once, that takes effect after `activateIn` (default `24h`). */
    rotateSecret(opts: { activateIn?: string } = {}): Promise<WebhookSecretRotated> {
      return call(() => api.POST('/v1/webhook-endpoint/rotate-secret', { body: opts }));
    },

    /** Enables a disabled endpoint; what it held waits for a recovery. */
    enable(): Promise<WebhookEndpoint> {
      return retry(() => call(() => api.POST('/v1/webhook-endpoint/enable')));
    },
  };
}
