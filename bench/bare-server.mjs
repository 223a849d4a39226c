// The yardstick: node:http that reads and parses the same body and answers 202, nothing else.
import http from 'node:http';

const port = Number(process.env.PORT ?? 0);
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let parsed;
    try {
      parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400).end();
      return;
    }
    const body = JSON.stringify({ status: 'accepted', partnerSubmissionId: parsed.partnerSubmissionId });
    res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
