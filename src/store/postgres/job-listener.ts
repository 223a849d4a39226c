import pg from 'pg';
import type { Logger } from 'pino';
import type { WakeSource } from '../../queue/notifier.js';
import { JOBS_CHANNEL } from '../migrations/0005_job_notifications.js';
import { pgErrorFields } from './connect.js';

export interface ListenerTiming {
  /** First reconnection delay; doubles per failure up to `maxRetryMs`. */
  minRetryMs: number;
  maxRetryMs: number;
  /** A query on the listening connection this often: a connection that died silently is replaced. */
  pingMs: number;
}

const DEFAULT_TIMING: ListenerTiming = { minRetryMs: 250, maxRetryMs: 10_000, pingMs: 15_000 };

/**
 * A dedicated connection (outside the pool: LISTEN belongs to a session) that turns
 * notifications on the jobs channel into wake-ups. When it drops it reconnects with backoff, and
 * after every (re)connection it wakes the worker once, since notifications sent while it was away
 * are lost; the worker's poll covers the gap meanwhile.
 */
export class PostgresJobListener implements WakeSource {
  constructor(
    private readonly config: pg.ClientConfig,
    private readonly logger: Logger,
    private readonly timing: ListenerTiming = DEFAULT_TIMING,
  ) {}

  start(wake: () => void): () => Promise<void> {
    let stopped = false;
    let current: pg.Client | undefined;
    let retryTimer: NodeJS.Timeout | undefined;
    let failures = 0;

    const ping = setInterval(() => {
      current?.query('select 1').catch(() => {
        // The client's own 'error' or 'end' event follows, or the next ping retries.
        current?.end().catch(() => {});
      });
    }, this.timing.pingMs);
    ping.unref();

    const scheduleReconnect = (error: unknown) => {
      if (stopped) return;
      const delay = Math.min(this.timing.maxRetryMs, this.timing.minRetryMs * 2 ** failures);
      failures += 1;
      this.logger.warn(
        { err: error === undefined ? undefined : pgErrorFields(error), retryInMs: delay, failures },
        'the job listener lost its PostgreSQL connection; reconnecting',
      );
      retryTimer = setTimeout(connect, delay);
      retryTimer.unref();
    };

    const connect = () => {
      retryTimer = undefined;
      if (stopped) return;
      const client = new pg.Client(this.config);
      current = client;
      let gone = false;
      const lost = (error?: unknown) => {
        if (gone) return;
        gone = true;
        if (current === client) current = undefined;
        client.end().catch(() => {});
        scheduleReconnect(error);
      };
      // Kept for the client's lifetime: an 'error' event without a listener ends the process.
      client.on('error', (error) => lost(error));
      client.on('end', () => lost());
      client.on('notification', (message) => {
        if (message.channel === JOBS_CHANNEL) wake();
      });
      client
        .connect()
        .then(() => client.query(`listen ${JOBS_CHANNEL}`))
        .then(
          () => {
            if (stopped || gone) return;
            if (failures > 0) this.logger.info({ failures }, 'the job listener is connected again');
            failures = 0;
            wake();
          },
          (error: unknown) => lost(error),
        );
    };

    connect();
    return async () => {
      stopped = true;
      clearInterval(ping);
      if (retryTimer) clearTimeout(retryTimer);
      const client = current;
      current = undefined;
      await client?.end().catch(() => {});
    };
  }
}
