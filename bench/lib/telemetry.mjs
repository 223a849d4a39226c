// `--telemetry off|metrics|tracing` for the benchmarks: what the service processes run with.
// metrics: each process serves /metrics (METRICS_PORT), scraped every second by a peer process
// (15 s is the usual interval). tracing: each process sends its spans over OTLP/HTTP to a peer
// process that reads and discards them, as a collector would. The peer (`telemetry-peer.mjs`)
// runs apart because the benchmark blocks while wrk runs.
import { fork } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function startPeer(role) {
  const child = fork(path.join(import.meta.dirname, 'telemetry-peer.mjs'), [role], { stdio: 'inherit' });
  const next = (key) =>
    new Promise((resolve) => child.on('message', (m) => m[key] !== undefined && resolve(m[key])));
  let report = { count: 0, bytes: 0 };
  return {
    child,
    next,
    async stop() {
      child.send({ report: true });
      report = await next('report');
      child.disconnect();
    },
    report: () => report,
  };
}

export async function benchTelemetry(mode) {
  if (mode === 'off') return { env: async () => ({}), stop: async () => {}, summary: () => 'telemetry: off' };
  if (mode === 'metrics') {
    const peer = startPeer('scrape');
    return {
      async env() {
        const port = await freePort();
        peer.child.send({ url: `http://127.0.0.1:${port}/metrics` });
        return { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' };
      },
      stop: () => peer.stop(),
      summary: () => {
        const { count, bytes } = peer.report();
        return `telemetry: metrics on, ${count} scrapes of ${Math.round(bytes / Math.max(1, count) / 1024)} KiB`;
      },
    };
  }
  if (mode === 'tracing') {
    const peer = startPeer('sink');
    const port = await peer.next('port');
    return {
      async env() {
        return { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` };
      },
      stop: () => peer.stop(),
      summary: () => {
        const { count, bytes } = peer.report();
        return `telemetry: tracing on, ${count} exports, ${Math.round(bytes / 1024)} KiB of spans`;
      },
    };
  }
  throw new Error(`--telemetry must be off, metrics or tracing (not ${mode})`);
}
