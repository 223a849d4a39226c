import { spawn } from 'node:child_process';
import path from 'node:path';
import type { TestService } from './service.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/healthspan-admin');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, unknown> | undefined;
  lines: string[];
}

/**
 * Runs the real operator CLI with `env` on top of this process's: its exit code, stderr and one
 * JSON line. Asynchronously: a service running in this process goes on meanwhile (waiting for
 * the CLI synchronously froze it, with whatever it held, such as SQLite's write lock).
 */
export async function runCli(
  env: Record<string, string>,
  args: string[],
  opts: { cwd?: string } = {},
): Promise<CliRun> {
  const child = spawn(BIN, args, {
    env: { ...process.env, LOG_LEVEL: 'silent', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  });
  const res = { status: code, stdout, stderr };
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
export function cliFor(
  service: TestService,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
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
export async function setCallback(service: TestService, partnerId: string, url: string): Promise<string> {
  const set = await cliFor(service, ['webhooks', 'set', '--partner', partnerId, '--url', url]);
  if (set.code !== 0 || typeof set.json?.signingSecret !== 'string') {
    throw new Error(`webhooks set failed: ${set.stderr}`);
  }
  return set.json.signingSecret;
}
