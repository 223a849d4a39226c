import pino, { type Logger } from 'pino';
import { logContext } from './context.js';

/**
 * Paths that must never reach a log line: credentials, secrets and anything a partner
 * submitted. Request bodies are not logged at all; these catch accidental inclusion.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'headers.authorization',
  'headers["x-api-key"]',
  'apiKey',
  '*.apiKey',
  'signingSecret',
  '*.signingSecret',
  'secret',
  '*.secret',
  'body',
  '*.body',
  'subject',
  '*.subject',
  'markers',
  '*.markers',
  // PostgreSQL errors: `detail` can quote a whole failing row (a submission's body) and `where`
  // the statement's context; the message and code say what went wrong.
  'err.detail',
  'err.where',
  'err.internalQuery',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'healthspan' },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      formatters: { level: (label) => ({ level: label }) },
      // Every line written while a request or a job runs carries its ids (src/context.ts); the
      // line's own fields win. Redaction applies to the merged line.
      mixin: logContext,
    },
    destination,
  );
}
