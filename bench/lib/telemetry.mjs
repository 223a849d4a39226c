// `--telemetry off|metrics|tracing` for the benchmarks: what the service processes run with.
// metrics: each process serves /metrics (METRICS_PORT) and this process scrapes each one every
// second, as a busy Prometheus would (15 s is the usual interval). tracing: each process sends its
// spans over OTLP/HTTP to a sink in this process that reads and discards them, as a collector would.
import http from 'node:http';
import net from 'node:net';

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function benchTelemetry(mode) {
  if (mode === 'off') return { env: async () => ({}), stop: async () => {}, summary: () => 'telemetry: off' };
  if (mode === 'metrics') {
    const urls = [];
    let scrapes = 0;
    let bytes = 0;
    const timer = setInterval(() => {
      for (const url of urls) {
        fetch(url).then(
          async (res) => {
            bytes += (await res.arrayBuffer()).byteLength;
            scrapes++;
          },
          () => {},
        );
      }
    }, 1000);
    return {
      async env() {
        const port = await freePort();
        urls.push(`http://127.0.0.1:${port}/metrics`);
        return { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' };
      },
      async stop() {
        clearInterval(timer);
      },
      summary: () =>
        `telemetry: metrics on, ${scrapes} scrapes of ${Math.round(bytes / Math.max(1, scrapes) / 1024)} KiB`,
    };
  }
  if (mode === 'tracing') {
    let exports = 0;
    let bytes = 0;
    const sink = http.createServer((req, res) => {
      req.on('data', (c) => {
        bytes += c.length;
      });
      req.on('end', () => {
        exports++;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise((resolve) => sink.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${sink.address().port}`;
    return {
      async env() {
        return { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint };
      },
      async stop() {
        sink.closeAllConnections();
        await new Promise((resolve) => sink.close(resolve));
      },
      summary: () => `telemetry: tracing on, ${exports} exports, ${Math.round(bytes / 1024)} KiB of spans`,
    };
  }
  throw new Error(`--telemetry must be off, metrics or tracing (not ${mode})`);
}
