#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { HealthspanError } from '../errors.js';
import { type ForwardOutcome, listen } from '../listen.js';

/**
 * `npx healthspan listen --forward-to http://localhost:3000/webhooks`: forwards your test
 * events to a local receiver (the key in HEALTHSPAN_API_KEY, the service in HEALTHSPAN_BASE_URL
 * or --base-url). Events go to stdout, one line each; connection news to stderr.
 */
const USAGE = `Usage: healthspan listen --forward-to <url> [--base-url <url>]

Forwards your test events (result.ready) to a local URL as real, signed deliveries.
  --forward-to <url>   where to POST each event, e.g. http://localhost:3000/webhooks
  --base-url <url>     the healthspan service (default: $HEALTHSPAN_BASE_URL)
Environment: HEALTHSPAN_API_KEY (a test key, hs_test_…), HEALTHSPAN_BASE_URL.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function line(outcome: ForwardOutcome): string {
  const answer = outcome.statusCode === null ? `no answer (${outcome.error})` : String(outcome.statusCode);
  return `${new Date().toISOString()}  result.ready ${outcome.eventId}  --> ${answer}  ${outcome.durationMs} ms  POST ${outcome.url}`;
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== 'listen') fail(USAGE);
  const { values } = parseArgs({
    args: rest,
    options: { 'forward-to': { type: 'string' }, 'base-url': { type: 'string' }, help: { type: 'boolean' } },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const forwardTo = values['forward-to'] ?? fail(`--forward-to is required.\n\n${USAGE}`);
  const baseUrl =
    values['base-url'] ??
    process.env.HEALTHSPAN_BASE_URL ??
    fail(`Set HEALTHSPAN_BASE_URL or pass --base-url.\n\n${USAGE}`);
  const apiKey = process.env.HEALTHSPAN_API_KEY ?? fail('Set HEALTHSPAN_API_KEY to a test key (hs_test_…).');
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  let secret: string | undefined;
  await listen({
    baseUrl,
    apiKey,
    forwardTo,
    signal: stop.signal,
    onStarted: ({ listenSecret }) => {
      if (listenSecret === secret) {
        process.stderr.write('Connected again; resuming after the last event forwarded.\n');
        return;
      }
      secret = listenSecret;
      process.stdout.write(
        `Ready. Your listen secret is ${listenSecret} (verify the forwarded events with it). Ctrl-C to stop.\n`,
      );
    },
    onForwarded: (outcome) => process.stdout.write(`${line(outcome)}\n`),
    onReconnecting: ({ delayMs, reason, connected }) =>
      process.stderr.write(
        connected
          ? `The stream dropped (${reason}); reconnecting in ${delayMs} ms.\n`
          : `Cannot reach the service at ${baseUrl} (${reason}); check --base-url or HEALTHSPAN_BASE_URL and that the service runs. Trying again in ${delayMs} ms.\n`,
      ),
    onReportFailed: ({ eventId, error }) =>
      process.stderr.write(`Could not report the answer to ${eventId}: ${error.message}\n`),
  });
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message =
    error instanceof HealthspanError
      ? `${error.code}: ${error.message}`
      : error instanceof Error
        ? error.message
        : String(error);
  process.stderr.write(`healthspan listen: ${message}\n`);
  process.exit(1);
});
