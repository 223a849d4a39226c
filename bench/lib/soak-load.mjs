// The soak's load generator, a process of its own so its CPU and memory are not the service's.
// Open loop: submission i is sent at start + i/rate whether or not earlier ones were answered
// (a timer schedule, not a pool of connections waiting on each other), so a slow service shows
// as latency and backlog instead of a lower offered rate. Latency is measured from the
// scheduled send time. Once a second it sends the parent {sent, ok, failed, latencies[]}.
import http from 'node:http';

const [base, rateText, minutesText, bodyText] = process.argv.slice(2);
const apiKey = process.env.SOAK_API_KEY;
const rate = Number(rateText);
const total = Math.round(rate * 60 * Number(minutesText));
const body = Buffer.from(bodyText);
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

let window = { sent: 0, ok: 0, failed: 0, latencies: [] };
let inFlight = 0;
let reportedFailure = false;
function post(i, due) {
  window.sent++;
  inFlight++;
  const req = http.request(
    `${base}/v1/submissions`,
    {
      method: 'POST',
      agent,
      headers: {
        'content-type': 'application/json',
        'content-length': body.length,
        'x-api-key': apiKey,
        'idempotency-key': `soak-${i}`,
        'x-correlation-id': 'soak',
      },
    },
    (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        inFlight--;
        if (res.statusCode === 202) {
          window.ok++;
          window.latencies.push(performance.now() - due);
        } else {
          window.failed++;
          if (!reportedFailure) {
            reportedFailure = true;
            console.error(`soak-load: a POST answered ${res.statusCode}: ${Buffer.concat(chunks)}`);
          }
        }
      });
    },
  );
  req.on('error', (error) => {
    inFlight--;
    if (!reportedFailure) {
      reportedFailure = true;
      console.error(`soak-load: ${error.message}`);
    }
    window.failed++;
  });
  req.end(body);
}

const started = performance.now();
let next = 0;
function tick() {
  const now = performance.now();
  while (next < total && started + (next * 1000) / rate <= now) {
    post(next, started + (next * 1000) / rate);
    next++;
  }
  if (next < total) setTimeout(tick, Math.max(0, started + (next * 1000) / rate - performance.now()));
}
tick();
const report = setInterval(() => {
  process.send(window);
  window = { sent: 0, ok: 0, failed: 0, latencies: [] };
  if (next >= total && inFlight === 0) {
    agent.destroy();
    clearInterval(report);
    process.disconnect();
  }
}, 1000);
