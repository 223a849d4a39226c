import type { Config } from './config.js';

/**
 * The effective configuration in one log line at start: what an operator checks first when a
 * process behaves unexpectedly. Never a secret: no keys, no passwords, and for Redis only where
 * it is, not its credentials.
 */
export function configSummary(config: Config, role: string, store: string) {
  const worker = role !== 'api' && config.workerConcurrency > 0;
  return {
    role,
    store,
    listen: `${config.host}:${config.port}`,
    publicBaseUrl: config.publicBaseUrl,
    // Where the bucket is, never its credentials.
    artifacts: config.objectStore
      ? {
          store: `s3://${config.objectStore.bucket}/${config.objectStore.prefix}`,
          endpoint: config.objectStore.endpoint.origin,
          download: config.artifactDownload,
        }
      : config.embeddedArtifacts,
    worker: worker
      ? {
          concurrency: config.workerConcurrency,
          renderThreads: config.renderThreads,
          leaseSeconds: config.jobLeaseSeconds,
          maxAttempts: config.jobMaxAttempts,
        }
      : 'off',
    limits: {
      ratePerMinute: config.rateLimitPerMinute || 'off',
      authFailuresPerMinute: config.authFailuresPerMinute || 'off',
      shared: config.redisUrl ? redisWhere(config.redisUrl) : 'per process',
      bodyBytes: config.bodyLimitBytes,
    },
    timeoutsMs: {
      headers: config.headersTimeoutMs,
      request: config.requestTimeoutMs,
      keepAlive: config.keepAliveTimeoutMs,
      responseIdle: config.responseIdleTimeoutMs,
    },
    cors: config.corsAllowedOrigins.length > 0 ? config.corsAllowedOrigins : 'off',
    webhooks: {
      allowInsecure: config.webhookAllowInsecure,
      timeoutMs: config.webhookTimeoutMs,
      retries: config.webhookRetryScheduleMs.length,
    },
    trustProxy: config.trustProxy,
    migrateOnStart: config.migrateOnStart,
  };
}

function redisWhere(url: string): string {
  try {
    const { protocol, hostname, port } = new URL(url);
    return `${protocol}//${hostname}:${port || '6379'}`;
  } catch {
    return 'redis';
  }
}
