import net from 'node:net';
import { ConfigError } from './config.js';

/**
 * A port this process could not listen on, as one sentence naming the setting and the fix;
 * any other error as it is. `setting` is `PORT` or `METRICS_PORT`, `hostSetting` its address's.
 */
export function explainListenFailure(
  error: unknown,
  where: {
    setting: 'PORT' | 'METRICS_PORT';
    port: number;
    hostSetting: 'HOST' | 'METRICS_HOST';
    host: string;
  },
): unknown {
  const code = (error as { code?: unknown })?.code;
  const { setting, port, hostSetting, host } = where;
  const other = port === 0 || port >= 65535 ? 8081 : port + 1;
  switch (code) {
    case 'EADDRINUSE':
      return new ConfigError(
        `${setting}=${port} is already in use on ${host} (another process listens there); stop that process, or set ${setting} to a free port (for example ${setting}=${other}).`,
      );
    case 'EACCES':
      return new ConfigError(
        `${setting}=${port} on ${host} needs privileges this process does not have; set ${setting} to a port above 1023 (for example ${setting}=8080).`,
      );
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
      return new ConfigError(
        `${hostSetting}=${host} is not an address of this machine; set ${hostSetting} to one of its addresses (0.0.0.0 for all of them).`,
      );
    default:
      return error;
  }
}

/**
 * Listens on `port` at `host` for an instant and lets go, before the service opens its store: a
 * start refused for its port then writes nothing to the database (the real listen comes after
 * migrating, and may still lose a race for the port, which it explains the same way).
 */
export async function checkPortFree(where: Parameters<typeof explainListenFailure>[1]): Promise<void> {
  if (where.port === 0) return;
  const server = net.createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port: where.port, host: where.host, exclusive: true }, () => resolve());
    });
  } catch (error) {
    throw explainListenFailure(error, where);
  } finally {
    await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  }
}
