import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { ServiceMetrics } from './metrics.js';

export interface MetricsServer {
  /** The address actually bound (METRICS_PORT=0 picks one). */
  url: string;
  close(): Promise<void>;
}

/**
 * `/metrics` on a listener of its own (METRICS_HOST:METRICS_PORT), apart from the partner API:
 * it needs no API key, so it must not be reachable where the API is, and a scrape never waits
 * behind partner traffic's rate limits or body limits.
 */
export async function serveMetrics(
  metrics: ServiceMetrics,
  options: { host: string; port: number },
  logger: Logger,
): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(path === '/metrics' ? 405 : 404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(path === '/metrics' ? 'Use GET.\n' : 'Metrics are at /metrics.\n');
      return;
    }
    metrics.exposition().then(
      ({ contentType, body }) => {
        res.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'collecting metrics failed');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
        res.end('Collecting metrics failed; see the service log.\n');
      },
    );
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      }),
  };
}
