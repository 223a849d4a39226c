// The other side of `--telemetry`, in a process of its own so that it keeps working while the
// benchmark blocks on wrk: `scrape` fetches each /metrics URL it is sent every second (as a busy
// Prometheus would); `sink` accepts OTLP/HTTP exports and discards them (as a collector would).
// Talks to the benchmark over IPC: it sends { port } when listening and { report } when asked.
import http from 'node:http';

const role = process.argv[2];
let count = 0;
let bytes = 0;

if (role === 'scrape') {
  const urls = [];
  process.on('message', (m) => {
    if (m.url) urls.push(m.url);
    if (m.report) process.send({ report: { count, bytes } });
  });
  setInterval(() => {
    for (const url of urls) {
      fetch(url).then(
        async (res) => {
          bytes += (await res.arrayBuffer()).byteLength;
          count++;
        },
        () => {},
      );
    }
  }, 1000);
} else if (role === 'sink') {
  const server = http.createServer((req, res) => {
    req.on('data', (c) => {
      bytes += c.length;
    });
    req.on('end', () => {
      count++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
  process.on('message', (m) => {
    if (m.report) process.send({ report: { count, bytes } });
  });
} else {
  throw new Error(`unknown role ${role}`);
}
process.on('disconnect', () => process.exit(0));
