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
import { docBlock, docFiles, shBlocks } from './doc-blocks.js';

/**
 * The README's walkthrough, run as it is written (issue 13: a new operator and partner engineer
 * can do everything from the README alone), then every other shell block of the README and the
 * docs that a reader runs against that server (issue 38). Only the base URL and the receivers'
 * ports are changed to free ones; the server is started with `npm start`, restarted between the
 * blocks as the README says.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const WALKTHROUGH = 'README.md › ## Walkthrough: the recommended client sequence';
const CALLBACK = 'README.md › ### With a callback instead of polling';
const STOP = 'README.md › ### With a callback instead of polling #2';
/** Run after the walkthrough, in this order, in one shell that has its variables. */
const AFTERWARDS = [
  'README.md › ### Test mode (the sandbox)',
  'docs/sandbox.md › ## Keys',
  'docs/sandbox.md › ## Sending a test event',
  'docs/console.md › ## Signing in: one-time links, no passwords',
  'docs/fhir.md › # FHIR R4 export',
  'docs/self-service.md › ## Finding submissions',
  'README.md › ## Walkthrough: the recommended client sequence #2',
  // Last: it erases the walkthrough's subject.
  'README.md › ### Erasing a subject, and the audit trail',
];
/** Run as written by another test. */
const ELSEWHERE = {
  'packages/client/README.md › # @healthspan/client': 'test/client/package.full.test.ts installs with it',
};

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
    const polling = docBlock(WALKTHROUGH);
    expect(polling).toContain('BASE=http://localhost:8080\n');
    const first = run(
      'bash',
      [
        '-euo',
        'pipefail',
        '-c',
        `${polling.replace('BASE=http://localhost:8080\n', `BASE=${base}\n`)}\necho "STATE $API_KEY $PARTNER_ID $WORK $RESULT_ID"`,
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
    const [, apiKey, partnerId, work, resultId] = /STATE (\S+) (\S+) (\S+) (\S+)/.exec(out) ?? [];
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

    const callback = docBlock(CALLBACK);
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
    const stop = docBlock(STOP);
    expect(stop).toContain('kill "$RECEIVER_PID"');
    const third = run('bash', ['-euo', 'pipefail', '-c', `RECEIVER_PID=${receiverPid}\n${stop}`], env);
    const [stopped] = (await once(third.child, 'exit')) as [number];
    expect(stopped, third.output()).toBe(0);
    await waitUntil(async () => !alive(receiverPid), 10_000, 'the receiver to stop');
    const freed = await fetch(`http://127.0.0.1:${receiverPort}/`).catch(() => 'refused');
    expect(freed).toBe('refused');

    // The other blocks, one shell for all, with what the walkthrough set; the test callback's
    // port is a free one too (nothing listens there: its deliveries fail, as they may).
    const testPort = String(await freePort());
    const script = AFTERWARDS.map(
      (key) => `echo; echo '=== ${key}'\n${docBlock(key).replaceAll('4001', testPort)}`,
    );
    const fourth = run(
      'bash',
      [
        '-euo',
        'pipefail',
        '-c',
        `BASE=${base}; WORK=${work}; API_KEY=${apiKey}; PARTNER_ID=${partnerId}; RESULT_ID=${resultId}\n${script.join('\n')}`,
      ],
      env,
    );
    const [ran] = (await once(fourth.child, 'exit')) as [number];
    // The end of the output says which block failed (the FHIR document alone is long).
    expect(ran, fourth.output().slice(-3000)).toBe(0);
    const said = new Map(
      fourth
        .output()
        .split(/^=== /m)
        .slice(1)
        .map((part) => [part.slice(0, part.indexOf('\n')), part.slice(part.indexOf('\n') + 1)]),
    );
    expect([...said.keys()]).toEqual(AFTERWARDS);
    const [testMode, keys, testEvent, consoleLink, exported, list, openapi, erasure] = AFTERWARDS.map(
      (key) => said.get(key)!,
    );
    expect(testMode).toMatch(
      /\{"eventId":"[0-9a-f-]{36}","type":"result\.ready","resultId":"[0-9a-f-]{36}"\}/,
    );
    expect(keys).toMatch(/"mode":"test","apiKey":"hs_test_/);
    expect(keys).toMatch(/"keys":\[/);
    expect(testEvent).toMatch(/\{"eventId":"[0-9a-f-]{36}","type":"result\.ready"/);
    expect(consoleLink).toMatch(/\{"url":"http:\/\/[^"]+\/console\/sign-in\?token=[^"]+","expiresAt":"/);
    expect(JSON.parse(exported!)).toMatchObject({ resourceType: 'Bundle', type: 'collection' });
    expect(list).toMatch(/^\{"items":\[/);
    expect(openapi).not.toMatch(/error/i);
    expect(fs.readFileSync(path.join(work!, 'healthspan-api.d.ts'), 'utf8')).toContain(
      'export interface paths',
    );
    expect(erasure).toMatch(
      /\{"erasureId":"[0-9a-f-]{36}","partnerSubjectId":"subj-9f8e7d","status":"pending"/,
    );
    expect(erasure).toMatch(/"action":"subject\.erasure_requested"|"action":"subject\.erased"/);
  });

  it('runs, or marks as not run, every shell block of the README and the docs', () => {
    const covered = new Set([WALKTHROUGH, CALLBACK, STOP, ...AFTERWARDS, ...Object.keys(ELSEWHERE)]);
    const blocks = docFiles().flatMap((file) => shBlocks(file));
    const unaccounted = blocks
      .filter((b) => !covered.has(b.key) && !b.notRun)
      .map((b) => `${b.file}:${b.line}`);
    expect(unaccounted, 'run these in a test, or mark them (# Example… / <!-- run elsewhere: … -->)').toEqual(
      [],
    );
    // Each named block exists, and none is both run and marked as not run.
    const keys = new Set(blocks.map((b) => b.key));
    expect([...covered].filter((key) => !keys.has(key))).toEqual([]);
    expect(blocks.filter((b) => covered.has(b.key) && b.notRun).map((b) => b.key)).toEqual([]);
  });
});
