/**
 * The one line a process that could not start prints, the same for `npm start` (dist/server.js)
 * and `healthspan-admin serve`: a known cause (a setting, the database, a port) is already one
 * sentence naming the setting and the fix (`ConfigError`, `DatabaseUnavailableError`).
 */
export function startFailureLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return `healthspan: failed to start: ${message.replace(/\s+/g, ' ').trim()}\n`;
}
