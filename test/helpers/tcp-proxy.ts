import net from 'node:net';

/**
 * A TCP relay between the service and PostgreSQL that a test can cut: `stop()` closes every
 * connection and refuses new ones (a database that went away), `start()` relays again on the
 * same port, and `freeze()` keeps existing connections open but silent (a network that stopped
 * answering). The database and the driver stay real; only the wire is interrupted.
 */
export class TcpProxy {
  private server: net.Server | undefined;
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket }>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  static async open(targetUrl: string): Promise<TcpProxy> {
    const url = new URL(targetUrl);
    const proxy = new TcpProxy({ host: url.hostname || '127.0.0.1', port: Number(url.port || 5432) });
    await proxy.start();
    return proxy;
  }

  /** `databaseUrl` with its host and port replaced by the proxy's. */
  via(databaseUrl: string): string {
    const url = new URL(databaseUrl);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  async start(): Promise<void> {
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      const pair = { client, upstream };
      this.pairs.add(pair);
      const close = () => {
        this.pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      };
      client.on('error', close).on('close', close);
      upstream.on('error', close).on('close', close);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const { client, upstream } of [...this.pairs]) {
      client.destroy();
      upstream.destroy();
    }
    this.pairs.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Existing connections stop carrying bytes in either direction; new ones still work. */
  freeze(): void {
    for (const { client, upstream } of this.pairs) {
      client.unpipe(upstream);
      upstream.unpipe(client);
      client.pause();
      upstream.pause();
    }
  }
}
