import type { Server } from 'node:http';
import type { Config } from '../config.js';

/**
 * `Strict-Transport-Security` on every answer (issue 38) when partners reach the service over
 * https (`PUBLIC_BASE_URL`): a browser that has seen it once never again opens the console (or a
 * download link) over plain http, where its session cookie or a signed link could be read on the
 * way. `includeSubDomains` covers only names under the service's own host; no `preload`, which
 * commits the whole registrable domain and is the domain owner's decision.
 *
 * Set on Node's response before Fastify sees the request, so framework errors, 404s and the
 * hijacked event stream carry it as the routes' answers do (headers a handler passes to
 * `writeHead` are merged with it). `HSTS_MAX_AGE_SECONDS=0` sends none, for a proxy that adds
 * its own.
 */
export function installTransportSecurity(
  server: Server,
  config: Pick<Config, 'publicBaseUrl' | 'hstsMaxAgeSeconds'>,
): void {
  const value = hstsHeader(config);
  if (value === undefined) return;
  server.prependListener('request', (_request, response) => {
    response.setHeader('strict-transport-security', value);
  });
}

/** The header's value, or undefined when none is sent (http, or turned off). */
function hstsHeader(config: Pick<Config, 'publicBaseUrl' | 'hstsMaxAgeSeconds'>): string | undefined {
  if (!config.publicBaseUrl.startsWith('https://') || config.hstsMaxAgeSeconds === 0) return undefined;
  return `max-age=${config.hstsMaxAgeSeconds}; includeSubDomains`;
}
