import { spawnSync } from 'node:child_process';
import path from 'node:path';
import type { TestService } from './service.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/healthspan');

/** Runs the real operator CLI with `env` on top of this process's: its exit code, stderr and one JSON line. */
export function runCli(env: Record<string, string>, args: string[], opts: { cwd?: string } = {}) {
  const res = spawnSync(BIN, args, {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    encoding: 'utf8',
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  const lines = res.stdout.trim().split('\n').filter(Boolean);
  return {
    code: res.status,
    stdout: res.stdout,
    stderr: res.stderr,
    json:
      lines.length === 1 && lines[0]!.startsWith('{')
        ? (JSON.parse(lines[0]!) as Record<string, unknown>)
        : undefined,
    lines,
  };
}

/** Runs the real operator CLI against a running test service's store. */
export function cliFor(service: TestService, args: string[], env: Record<string, string> = {}) {
  return runCli(
    {
      DATA_DIR: service.config.dataDir,
      ...(service.config.databaseUrl ? { DATABASE_URL: service.config.databaseUrl } : {}),
      WEBHOOK_ALLOW_INSECURE: String(service.config.webhookAllowInsecure),
      WEBHOOK_RETRY_SCHEDULE: service.config.webhookRetryScheduleMs.map((ms) => `${ms}ms`).join(','),
      ...env,
    },
    args,
  );
}

/** Registers `url` as the partner's callback with the real CLI; returns its signing secret. */
export function setCallback(service: TestService, partnerId: string, url: string): string {
  const set = cliFor(service, ['webhooks', 'set', '--partner', partnerId, '--url', url]);
  if (set.code !== 0 || typeof set.json?.signingSecret !== 'string') {
    throw new Error(`webhooks set failed: ${set.stderr}`);
  }
  return set.json.signingSecret;
}
