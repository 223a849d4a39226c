import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import type { Bundle } from '@medplum/fhirtypes';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase, testStoreKind } from '../helpers/database.js';
import { tempDataDir } from '../helpers/dirs.js';
import { waitUntil } from '../helpers/pipeline.js';
import { freePort } from '../helpers/processes.js';
import { bundleErrors } from '../reports/fhir-validator.js';

/**
 * The README's walkthrough, run as it is written (issue 13: a new operator and partner engineer
 * can do everything from the README alone). Only the base URL and the receiver's port are
 * changed to free ones; the server is started with `npm start`, restarted between the blocks
 * as the README says.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

function shellBlock(after: string): string {
  const start = README.indexOf(after);
  expect(start, after).toBeGreaterThan(-1);
  const block = /```sh\n([\s\S]*?)```/.exec(README.slice(start));
  if (!block?.[1]) throw new Error(`no sh block after ${after}`);
  return block[1];
}

const children: ChildProcess[] = [];
let database: TestDatabase | undefined;

afterAll(async () => {
  for (const child of children) {
    // The whole process group, even when its first process (a block's shell) has exited: what a
    // block started in the background outlives the shell. Only when a test failed before it
    // stopped them is anything left here.
    if (!child.pid) continue;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Nothing of that group is left.
    }
  }
  await database?.drop();
});

/** Running, and not merely a zombie waiting to be reaped by whoever inherited it. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true });
  children.push(child);
  let out = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  return { child, output: () => out };
}

/** Any process of the group `pgid` that is running (not merely a zombie). */
function groupAlive(pgid: number): boolean {
  return fs.readdirSync('/proc').some((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(pgrp) === pgid && state !== 'Z';
    } catch {
      return false;
    }
  });
}

/** `npm start`, as the README says; dist/ is fresh (beforeAll), so it starts without building. */
async function startServer(env: NodeJS.ProcessEnv, base: string) {
  const server = run('npm', ['start'], env);
  await waitUntil(
    async () => {
      if (server.child.exitCode !== null) throw new Error(`server exited: ${server.output()}`);
      return (await fetch(`${base}/ready`).catch(() => undefined))?.status === 200;
    },
    30_000,
    'the server',
  );
  expect(server.output()).toContain('healthspan: dist/ is up to date; not building');
  return server;
}

/** Ctrl-C in the server's terminal: the signal reaches npm, its shell and the server. */
async function stopServer(server: ReturnType<typeof run>) {
  const pgid = server.child.pid!;
  process.kill(-pgid, 'SIGINT');
  await waitUntil(async () => !groupAlive(pgid), 30_000, 'the server to stop');
}

beforeAll(() => {
  // Builds only when dist/ is older than the sources (after `npm test`'s build it is not).
  execFileSync(process.execPath, ['scripts/build-if-stale.mjs'], { cwd: ROOT, stdio: 'ignore' });
}, 600_000);

describe('the README walkthrough', () => {
  it('runs as written: polling, then a callback after a restart', async () => {
    const port = await freePort();
    const receiverPort = await freePort();
    const base = `http://127.0.0.1:${port}`;
    database = testStoreKind() === 'postgres' ? await createTestDatabase() : undefined;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATA_DIR: tempDataDir(),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...(database ? { DATABASE_URL: database.url } : {}),
    };

    let server = await startServer(env, base);
    const polling = shellBlock('## Walkthrough: the recommended client sequence');
    expect(polling).toContain('BASE=http://localhost:8080\n');
    const first = run(
      'bash',
      [
        '-euo',
        'pipefail',
        '-c',
        `${polling.replace('BASE=http://localhost:8080\n', `BASE=${base}\n`)}\necho "STATE $API_KEY $PARTNER_ID $WORK"`,
      ],
      env,
    );
    const [code] = (await once(first.child, 'exit')) as [number];
    const out = first.output();
    expect(code, out).toBe(0);
    expect(out).toMatch(/HTTP\/1\.1 204/);
    expect(out).toMatch(/"status":"accepted"/);
    expect(out.toLowerCase()).toContain('idempotent-replayed: true');
    expect(out).toMatch(/"status":"completed"/);
    const [, apiKey, partnerId, work] = /STATE (\S+) (\S+) (\S+)/.exec(out) ?? [];
    expect(fs.readFileSync(path.join(work!, 'report.pdf')).subarray(0, 5).toString()).toBe('%PDF-');
    // Patient, 14 markers, smoking, weight, height, BMI, the lab report and 4 risk assessments.
    expect(out).toMatch(/^24 FHIR resources$/m);
    // The list at the end of the block: the completed submission, found without its id.
    expect(out).toMatch(/\{"items":\[\{"submissionId":"[0-9a-f-]{36}","partnerSubmissionId":"sub-000123"/);
    const fhir = JSON.parse(fs.readFileSync(path.join(work!, 'result.fhir.json'), 'utf8')) as Bundle;
    expect(bundleErrors(fhir)).toEqual([]);

    // "Stop the running server, then start it again with WEBHOOK_ALLOW_INSECURE=true npm start".
    await stopServer(server);
    server = await startServer({ ...env, WEBHOOK_ALLOW_INSECURE: 'true' }, base);

    const callback = shellBlock('### With a callback instead of polling');
    expect(callback).toContain('4000');
    const second = run(
      'bash',
      [
        '-euo',
        'pipefail',
        '-c',
        `BASE=${base}; WORK=${work}; API_KEY=${apiKey}; PARTNER_ID=${partnerId}\n${callback.replaceAll('4000', String(receiverPort))}\necho "RECEIVER $RECEIVER_PID"`,
      ],
      env,
    );
    const read = await waitUntil(
      async () =>
        second.output().includes('"msg":"result read"') &&
        second.output().includes('"deliveries":[') &&
        second.output(),
      60_000,
      'the receiver to read the result',
    );
    expect(read).toContain('"msg":"event received"');
    expect(read).toMatch(/"msg":"result read".*"status":"completed"/);
    expect(read).toMatch(/"deliveries":\[/);
    expect(read).not.toContain('delivery rejected');

    // "When you are done with the receiver, stop it": the README's step 13, as written.
    const receiverPid = Number(
      await waitUntil(
        async () => /^RECEIVER (\d+)$/m.exec(second.output())?.[1],
        60_000,
        'the second block to finish',
      ),
    );
    expect(alive(receiverPid), 'the receiver runs until stopped').toBe(true);
    const stop = shellBlock('When you are done with the receiver, stop it');
    expect(stop).toContain('kill "$RECEIVER_PID"');
    const third = run('bash', ['-euo', 'pipefail', '-c', `RECEIVER_PID=${receiverPid}\n${stop}`], env);
    const [stopped] = (await once(third.child, 'exit')) as [number];
    expect(stopped, third.output()).toBe(0);
    await waitUntil(async () => !alive(receiverPid), 10_000, 'the receiver to stop');
    const freed = await fetch(`http://127.0.0.1:${receiverPort}/`).catch(() => 'refused');
    expect(freed).toBe('refused');
  });
});
