import pg from 'pg';
import type { Logger } from 'pino';
import type { WakeSource } from '../../jobs/notifier.js';
import { pgErrorFields } from './connect.js';
import { JOBS_CHANNEL } from './jobs-channel.js';

export interface ListenerTiming {
  /** First reconnection delay; doubles per failure up to `maxRetryMs`. */
  minRetryMs: number;
  maxRetryMs: number;
  /** A query on the listening connection this often: a connection that died silently is replaced. */
  pingMs: number;
}

export const LISTENER_APPLICATION_NAME = 'healthspan-job-listener';

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
    let current: { client: pg.Client; lost: (error?: unknown) => void } | undefined;
    let retryTimer: NodeJS.Timeout | undefined;
    let failures = 0;

    const ping = setInterval(() => {
      const listening = current;
      listening?.client.query('select 1').catch((error: unknown) => listening.lost(error));
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
      // Named apart from the pool's connections, so operators can tell it in pg_stat_activity.
      const client = new pg.Client({ ...this.config, application_name: LISTENER_APPLICATION_NAME });
      let gone = false;
      const lost = (error?: unknown) => {
        if (gone) return;
        gone = true;
        if (current?.client === client) current = undefined;
        void endWithin(client, 1000);
        scheduleReconnect(error);
      };
      current = { client, lost };
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
      const listening = current;
      current = undefined;
      if (listening) await endWithin(listening.client, 1000);
    };
  }
}

/**
 * Closes a connection, waiting at most `ms`: on a network that stopped answering the goodbye is
 * never acknowledged, and shutting down must not wait for the operating system to give up.
 */
async function endWithin(client: pg.Client, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    client.end().catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
