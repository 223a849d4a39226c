import { execFile, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliFor, setCallback } from '../helpers/cli.js';
import { tempDataDir } from '../helpers/dirs.js';
import { nodeOfLine, OTHER_LINES } from '../helpers/node-lines.js';
import { waitUntil } from '../helpers/pipeline.js';
import { freePort } from '../helpers/processes.js';
import { TestReceiver } from '../helpers/receiver.js';
import {
  bodyFor,
  createAccount,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers/service.js';

/**
 * `@healthspan/client` as a partner gets it: `npm pack`ed, installed from the tarball into a
 * throw-away project, and used from that project's own ES module and CommonJS files against a
 * real server, with its types checked by a TypeScript compiler as a consumer's would be.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const TSC = path.join(ROOT, 'node_modules/.bin/tsc');
const receiver = new TestReceiver();
const testReceiver = new TestReceiver();
let service: TestService;
let project: string;
let account: TestAccount;
let secret: string;
let testKey: string;
let testSecret: string;

/**
 * Runs a consumer script (on this Node, or another line's); asynchronously, since the server it
 * calls runs in this process.
 */
async function run(
  file: string,
  env: Record<string, string>,
  node: string = process.execPath,
): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(node, [file], {
    cwd: project,
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

/**
 * Packs the client and installs the tarball into a fresh project, asynchronously: the server it
 * will call starts meanwhile (synchronously, the pack and install stalled everything else).
 */
async function installClient(): Promise<string> {
  const dir = tempDataDir();
  const exec = promisify(execFile);
  const { stdout: packed } = await exec('npm', ['pack', '--silent', '--pack-destination', dir], {
    cwd: path.join(ROOT, 'packages/client'),
    encoding: 'utf8',
  });
  fs.writeFileSync(
    path.join(dir, 'package.json'),
    JSON.stringify({ name: 'partner-app', private: true, type: 'module' }),
  );
  // The package README's install command, as written: it names the tarball `npm pack` makes.
  const readme = fs.readFileSync(path.join(ROOT, 'packages/client/README.md'), 'utf8');
  const install = /```sh\n(npm install \S+)\n```/.exec(readme)?.[1];
  if (install !== `npm install ./${packed.trim()}`) {
    throw new Error(`the README installs with "${install}", npm pack made ${packed.trim()}`);
  }
  await exec(
    'npm',
    // With a Standard Webhooks library, as a receiver would verify with.
    [
      ...install.split(' ').slice(1),
      'standardwebhooks@1.1.1',
      '--no-audit',
      '--no-fund',
      '--prefer-offline',
      '--no-package-lock',
    ],
    { cwd: dir },
  );
  return dir;
}

beforeAll(async () => {
  const installed = installClient();
  // Awaited below; this only keeps a failure before then from counting as unhandled.
  installed.catch(() => {});
  // A known port, so the signed download links the service issues point at it.
  const port = await freePort();
  service = await startTestService({
    PORT: String(port),
    PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    RATE_LIMIT_PER_MINUTE: '0',
    WEBHOOK_ALLOW_INSECURE: 'true',
  });
  const hook = await receiver.start();
  account = await createAccount(service);
  secret = await setCallback(service, account.partnerId, hook);
  // Test mode for the same credential: its key and its own callback.
  testKey = (await cliFor(service, ['keys', 'create', '--partner', account.partnerId, '--mode', 'test']))
    .json!.apiKey as string;
  const testHook = await testReceiver.start();
  testSecret = (
    await cliFor(service, [
      'webhooks',
      'set',
      '--partner',
      account.partnerId,
      '--url',
      testHook,
      '--mode',
      'test',
    ])
  ).json!.signingSecret as string;
  project = await installed;
  fs.writeFileSync(path.join(project, 'body.json'), JSON.stringify(bodyFor(account)));
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await receiver.stop();
  await testReceiver.stop();
});

describe('@healthspan/client, installed from its tarball', () => {
  it('ships only its build, types, README and the command’s entry', () => {
    const installed = path.join(project, 'node_modules/@healthspan/client');
    expect(fs.readdirSync(installed).sort()).toEqual(['README.md', 'bin', 'dist', 'package.json']);
    expect(fs.readdirSync(path.join(installed, 'bin'))).toEqual(['healthspan.js']);
    expect(fs.realpathSync(path.join(project, 'node_modules/.bin/healthspan'))).toBe(
      fs.realpathSync(path.join(installed, 'bin/healthspan.js')),
    );
    expect(fs.existsSync(path.join(installed, 'dist/esm/index.d.ts'))).toBe(true);
    expect(fs.existsSync(path.join(installed, 'dist/cjs/index.js'))).toBe(true);
  });

  it('runs the recommended sequence from an ES module: submit, wait, read, download; a retry of the key replays', async () => {
    fs.writeFileSync(
      path.join(project, 'sequence.mjs'),
      `import fs from 'node:fs';
import { createClient } from '@healthspan/client';
const client = createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
const body = JSON.parse(fs.readFileSync('body.json', 'utf8'));
const accepted = await client.submissions.create(body, { idempotencyKey: 'partner-key-1' });
const again = await client.submissions.create(body, { idempotencyKey: 'partner-key-1' });
const done = await client.submissions.waitForCompletion(accepted.submissionId, { timeoutMs: 60000, intervalMs: 100 });
const result = await client.results.get(done.resultId);
const fhir = await client.results.fhir(done.resultId);
const pdf = result.artifacts.items.find((a) => a.type === 'pdf');
const file = await client.artifacts.download(pdf);
const generated = await client.submissions.create(body);
console.log(JSON.stringify({
  status: done.status, replayedSame: again.submissionId === accepted.submissionId,
  resultOutcomes: result.outcomes.length, fhirType: fhir.resourceType + '/' + fhir.type, pdf: Buffer.from(file.bytes.subarray(0, 5)).toString(),
  contentType: file.contentType, fileName: file.fileName, generatedKeyIsNew: generated.submissionId !== accepted.submissionId,
}));
`,
    );
    const out = await run('sequence.mjs', { BASE: service.url, KEY: account.apiKey });
    expect(out).toMatchObject({
      status: 'completed',
      replayedSame: true,
      pdf: '%PDF-',
      contentType: 'application/pdf',
      generatedKeyIsNew: true,
      fhirType: 'Bundle/collection',
    });
    expect(out.resultOutcomes).toBeGreaterThan(0);
    expect(out.fileName).toMatch(/\.pdf$/);
  });

  it('works from CommonJS: typed errors with code and request id, and verifies a real delivery', async () => {
    const delivery = await waitUntil(async () => receiver.deliveries[0], 60_000, 'a delivery');
    fs.writeFileSync(path.join(project, 'delivery.bin'), delivery.rawBody);
    fs.writeFileSync(path.join(project, 'headers.json'), JSON.stringify(delivery.headers));
    fs.writeFileSync(
      path.join(project, 'receiver.cjs'),
      `const fs = require('node:fs');
const { createClient, HealthspanError, verifyWebhook } = require('@healthspan/client');
const client = createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
(async () => {
  const raw = fs.readFileSync('delivery.bin');
  const headers = JSON.parse(fs.readFileSync('headers.json', 'utf8'));
  const verified = client.webhooks.verify(raw, headers, [process.env.OLD, process.env.SECRET]);
  const forged = verifyWebhook(Buffer.concat([raw, Buffer.from(' ')]), headers, process.env.SECRET);
  const event = client.webhooks.parse(raw);
  let error;
  try { await client.submissions.get('00000000-0000-4000-8000-000000000000'); } catch (e) { error = e; }
  console.log(JSON.stringify({
    verified: verified.ok, eventId: verified.eventId, forged: forged.reason, eventType: event.eventType,
    errorIsTyped: error instanceof HealthspanError, code: error.code, status: error.status, requestId: error.requestId,
  }));
})();
`,
    );
    const out = await run('receiver.cjs', {
      BASE: service.url,
      KEY: account.apiKey,
      SECRET: secret,
      OLD: 'whsec_an_old_secret',
    });
    expect(out).toMatchObject({
      verified: true,
      eventId: delivery.headers['x-healthspan-event-id'],
      forged: 'bad_signature',
      eventType: 'result.ready',
      errorIsTyped: true,
      code: 'NOT_FOUND',
      status: 404,
    });
    expect(out.requestId).toEqual(expect.any(String));
  });

  it('runs the quick start with a test key and receives a test event that the standardwebhooks library verifies', async () => {
    fs.writeFileSync(
      path.join(project, 'sandbox.mjs'),
      `import fs from 'node:fs';
import { createClient } from '@healthspan/client';
const client = createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
const body = JSON.parse(fs.readFileSync('body.json', 'utf8'));
const accepted = await client.submissions.create(body);
const done = await client.submissions.waitForCompletion(accepted.submissionId, { timeoutMs: 60000, intervalMs: 100 });
const sent = await client.testEvents.send();
console.log(JSON.stringify({ status: done.status, resultId: done.resultId, sent }));
`,
    );
    const out = await run('sandbox.mjs', { BASE: service.url, KEY: testKey });
    const sent = out.sent as { eventId: string; resultId: string };
    expect(out.status).toBe('completed');
    expect(sent.resultId).toBe(out.resultId);
    const delivery = await waitUntil(
      async () => testReceiver.deliveries.find((d) => d.headers['webhook-id'] === sent.eventId),
      60_000,
      'the test event',
    );
    expect(delivery.headers['x-healthspan-mode']).toBe('test');
    fs.writeFileSync(path.join(project, 'test-delivery.bin'), delivery.rawBody);
    fs.writeFileSync(path.join(project, 'test-headers.json'), JSON.stringify(delivery.headers));
    fs.writeFileSync(
      path.join(project, 'verify-standard.mjs'),
      `import fs from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '@healthspan/client';
const raw = fs.readFileSync('test-delivery.bin');
const headers = JSON.parse(fs.readFileSync('test-headers.json', 'utf8'));
const verdict = (secret, body) => { try { new Webhook(secret).verify(body, headers); return 'verified'; } catch (e) { return e.message; } };
const event = new Webhook(process.env.SECRET).verify(raw.toString('utf8'), headers);
console.log(JSON.stringify({
  library: verdict(process.env.SECRET, raw.toString('utf8')), liveSecret: verdict(process.env.LIVE, raw.toString('utf8')),
  client: verifyWebhook(raw, headers, process.env.SECRET).ok, resultId: event.resultId,
}));
`,
    );
    const verified = await run('verify-standard.mjs', { SECRET: testSecret, LIVE: secret });
    expect(verified).toMatchObject({ library: 'verified', client: true, resultId: out.resultId });
    expect(verified.liveSecret).not.toBe('verified');
    // The test key sees none of the live data, and the live key none of the test data.
    const read = (key: string, id: string) =>
      fetch(`${service.url}/v1/results/${id}`, { headers: { 'x-api-key': key } }).then((r) => r.status);
    expect(await read(testKey, out.resultId as string)).toBe(200);
    expect(await read(account.apiKey, out.resultId as string)).toBe(404);
  });

  it('retries through a real 429: waits what Retry-After asks, with the same key, and creates one submission', async () => {
    // The retry waits for the rate limit's window to end, as Retry-After says, which is what this
    // test is about. The window is shortened from a minute to 10 s (not less: the three creates
    // below must each fall in the window the test expects, on a loaded machine too).
    const limited = await startTestService({ RATE_LIMIT_PER_MINUTE: '1', WORKER_CONCURRENCY: '0' }, 'all', {
      rateLimitWindowMs: 10_000,
    });
    try {
      const other = await createAccount(limited);
      fs.writeFileSync(path.join(project, 'limited-body.json'), JSON.stringify(bodyFor(other)));
      fs.writeFileSync(
        path.join(project, 'retry.mjs'),
        `import fs from 'node:fs';
import { createClient } from '@healthspan/client';
const client = createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY, retry: { maxDelayMs: 90000 } });
const body = JSON.parse(fs.readFileSync('limited-body.json', 'utf8'));
const first = await client.submissions.create(body, { idempotencyKey: 'first' });
const started = Date.now();
const second = await client.submissions.create({ ...body, partnerSubmissionId: 'second' }, { idempotencyKey: 'second' });
let error;
try {
  await createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY, retry: { maxAttempts: 1 } })
    .submissions.create({ ...body, partnerSubmissionId: 'third' }, { idempotencyKey: 'third' });
} catch (e) { error = e; }
console.log(JSON.stringify({ first: first.submissionId, second: second.submissionId, waitedMs: Date.now() - started,
  code: error?.code, status: error?.status, retryAfter: error?.retryAfterSeconds }));
`,
      );
      const out = await run('retry.mjs', { BASE: limited.url, KEY: other.apiKey });
      expect(out.second).not.toBe(out.first);
      // Without a retry the 429 reaches the caller, typed, with the wait the service asked for.
      expect(out).toMatchObject({ code: 'RATE_LIMITED', status: 429 });
      expect(out.retryAfter).toBeGreaterThan(0);
      // The second create was refused once, then accepted with the same key after the wait.
      const lines = limited.logs
        .map((l) => JSON.parse(l) as { msg?: string; route?: string; status?: number; method?: string })
        .filter((l) => l.msg === 'request' && l.method === 'POST' && l.route === '/v1/submissions')
        .map((l) => l.status);
      expect(lines.slice(0, 4)).toEqual([202, 429, 202, 429]);
      expect(out.waitedMs).toBeGreaterThan(500);
    } finally {
      await limited.stop();
    }
  }, 120_000);

  it('finds an account’s submissions: one page, the next by its cursor, and all of them by iterating across pages', async () => {
    const lister = await createAccount(service);
    fs.writeFileSync(path.join(project, 'lister-body.json'), JSON.stringify(bodyFor(lister)));
    fs.writeFileSync(
      path.join(project, 'iterate.mjs'),
      `import fs from 'node:fs';
import { createClient } from '@healthspan/client';
const client = createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
const body = JSON.parse(fs.readFileSync('lister-body.json', 'utf8'));
const made = [];
for (let i = 0; i < 7; i++) made.push((await client.submissions.create({ ...body, partnerSubmissionId: 'list-' + i })).submissionId);
const all = [];
for await (const s of client.submissions.iterate({ limit: 3 })) all.push(s);
const first = await client.submissions.list({ limit: 3 });
const second = await client.submissions.list({ limit: 3, cursor: first.nextCursor });
const one = [];
for await (const s of client.submissions.iterate({ partnerSubmissionId: 'list-4', receivedAfter: new Date(0) })) one.push(s.submissionId);
let error;
try { await client.submissions.list({ limit: 3, status: 'failed', cursor: first.nextCursor }); } catch (e) { error = e; }
console.log(JSON.stringify({
  made, all: all.map((s) => s.submissionId), keys: Object.keys(all[0]).sort(),
  first: first.items.map((s) => s.submissionId), second: second.items.map((s) => s.submissionId), one,
  code: error?.code, fields: Object.keys(error?.details?.fieldErrors ?? {}),
}));
`,
    );
    const out = await run('iterate.mjs', { BASE: service.url, KEY: lister.apiKey });
    const newestFirst = [...(out.made as string[])].reverse();
    expect(out.all).toEqual(newestFirst);
    expect(out.first).toEqual(newestFirst.slice(0, 3));
    expect(out.second).toEqual(newestFirst.slice(3, 6));
    expect(out.one).toEqual([(out.made as string[])[4]]);
    expect(out.keys).not.toContain('markers');
    expect(out.keys).toContain('errorSummary');
    // A cursor is bound to its filters: used with others, a typed 400 naming it.
    expect(out).toMatchObject({ code: 'VALIDATION_ERROR', fields: ['query.cursor'] });
  });

  it('manages the callback endpoint: registers it, reads it, rotates its secret, enables and removes it', async () => {
    const owner = await createAccount(service);
    const hook = `http://127.0.0.1:${receiver.port}/hooks/mine`;
    fs.writeFileSync(
      path.join(project, 'endpoint.mjs'),
      `import { createClient } from '@healthspan/client';
const client = createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
let missing;
try { await client.webhookEndpoint.get(); } catch (e) { missing = e.code; }
const created = await client.webhookEndpoint.put({ url: process.env.HOOK, receiverKey: { value: 'rk_partner' } });
const shown = await client.webhookEndpoint.get();
const rotated = await client.webhookEndpoint.rotateSecret({ activateIn: '1h' });
const enabled = await client.webhookEndpoint.enable();
await client.webhookEndpoint.delete();
let gone;
try { await client.webhookEndpoint.get(); } catch (e) { gone = e.code; }
console.log(JSON.stringify({
  missing, gone, secret: created.signingSecret, status: shown.status, url: shown.url, header: shown.receiverKey?.header,
  secrets: enabled.signingSecrets.length, rotated: rotated.signingSecret, activatesAt: rotated.activatesAt,
}));
`,
    );
    const out = await run('endpoint.mjs', { BASE: service.url, KEY: owner.apiKey, HOOK: hook });
    expect(out).toMatchObject({
      missing: 'NOT_FOUND',
      gone: 'NOT_FOUND',
      secret: expect.stringMatching(/^whsec_/),
      status: 'enabled',
      url: hook,
      header: 'X-Api-Key',
      secrets: 2,
      rotated: expect.stringMatching(/^whsec_/),
      activatesAt: expect.any(String),
    });
  });

  it('finds events, reads one with its attempts, and recovers the window once an endpoint exists', async () => {
    const eventer = await createAccount(service);
    fs.writeFileSync(path.join(project, 'eventer-body.json'), JSON.stringify(bodyFor(eventer)));
    fs.writeFileSync(
      path.join(project, 'events.mjs'),
      `import fs from 'node:fs';
import { createClient } from '@healthspan/client';
const client = createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
const body = JSON.parse(fs.readFileSync('eventer-body.json', 'utf8'));
const results = [];
for (let i = 0; i < 4; i++) {
  const { submissionId } = await client.submissions.create({ ...body, partnerSubmissionId: 'event-' + i });
  results.push((await client.submissions.waitForCompletion(submissionId)).resultId);
}
const all = [];
for await (const e of client.events.iterate({ limit: 3, deliveryStatus: 'failed', createdAfter: new Date(0) })) all.push(e);
const first = await client.events.list({ limit: 3 });
const detail = await client.events.get(all[0].eventId);
let error;
try { await client.events.redeliver(all[0].eventId); } catch (e) { error = e; }
console.log(JSON.stringify({
  results, events: all.map((e) => e.resultId), reasons: all.map((e) => e.failureReason),
  pages: first.nextCursor !== null, body: JSON.parse(detail.body).resultId, attempts: detail.attempts,
  code: error?.code, status: error?.status,
}));
`,
    );
    const out = await run('events.mjs', { BASE: service.url, KEY: eventer.apiKey });
    expect(out.events).toEqual([...(out.results as string[])].reverse());
    expect(out.reasons).toEqual(['no_endpoint', 'no_endpoint', 'no_endpoint', 'no_endpoint']);
    expect(out).toMatchObject({ pages: true, attempts: [], code: 'WEBHOOK_NOT_CONFIGURED', status: 409 });
    expect(out.body).toBe((out.results as string[])[3]);

    await setCallback(service, eventer.partnerId, `http://127.0.0.1:${receiver.port}/hooks/healthspan`);
    fs.writeFileSync(
      path.join(project, 'recover.mjs'),
      `import { createClient } from '@healthspan/client';
const client = createClient({ baseUrl: process.env.BASE, apiKey: process.env.KEY });
const started = await client.events.recover({ since: new Date(Date.now() - 3600_000) });
const again = await client.events.recover({ since: new Date(Date.now() - 3600_000) });
const recovery = await client.recoveries.get(started.recoveryId);
console.log(JSON.stringify({ started, again: again.eventCount, recovery }));
`,
    );
    const recovered = await run('recover.mjs', { BASE: service.url, KEY: eventer.apiKey });
    expect(recovered).toMatchObject({ started: { eventCount: 4 }, again: 0, recovery: { eventCount: 4 } });
  });

  it('runs `npx healthspan listen`: prints the listen secret and forwards a test event, signed with it, to a local receiver', async () => {
    const local = new TestReceiver();
    const forwardTo = await local.start();
    // In its own process group, so the stop below reaches npx and the command it runs.
    const child = spawn('npx', ['--no', 'healthspan', 'listen', '--forward-to', forwardTo], {
      cwd: project,
      env: { ...process.env, HEALTHSPAN_API_KEY: testKey, HEALTHSPAN_BASE_URL: service.url },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const ready = await waitUntil(
        async () => /listen secret is (whsec_\S+)/.exec(stdout),
        60_000,
        'the listen secret',
      );
      const res = await fetch(`${service.url}/v1/submissions`, {
        method: 'POST',
        headers: {
          'x-api-key': testKey,
          'content-type': 'application/json',
          'idempotency-key': 'listen-1',
          'x-correlation-id': 'listen-1',
        },
        body: fs.readFileSync(path.join(project, 'body.json')),
      });
      const accepted = (await res.json()) as { submissionId: string };
      expect(res.status, JSON.stringify(accepted)).toBe(202);
      const { submissionId } = accepted;
      const delivery = await waitUntil(
        async () =>
          local.deliveries.find((d) => JSON.parse(d.rawBody.toString('utf8')).submissionId === submissionId),
        60_000,
        'the forwarded event',
      );
      expect(() =>
        new Webhook(ready[1]!).verify(
          delivery.rawBody.toString('utf8'),
          delivery.headers as Record<string, string>,
        ),
      ).not.toThrow();
      await waitUntil(async () => stdout.includes('--> 204'), 30_000, 'the line with the local answer');
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
      await local.stop();
    }
  });

  it('gives a TypeScript consumer the API’s types (a wrong field does not compile)', () => {
    fs.writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          lib: ['ES2023', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        files: ['consumer.ts'],
      }),
    );
    fs.writeFileSync(
      path.join(project, 'consumer.ts'),
      `import { createClient, type Result, type SubmissionRequest } from '@healthspan/client';
const client = createClient({ baseUrl: 'http://localhost:8080', apiKey: 'hs_test_x' });
export async function scores(id: string): Promise<number[]> {
  const result: Result = await client.results.get(id);
  return (result.outcomes ?? []).map((o) => o.score ?? 0);
}
export function send(body: SubmissionRequest) {
  return client.submissions.create(body, { idempotencyKey: 'k' });
}
export async function failedIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const s of client.submissions.iterate({ status: 'failed', receivedAfter: new Date(0) })) ids.push(s.submissionId);
  return ids;
}
export async function status(id: string): Promise<string> {
  const detail = await client.submissions.get(id);
  // @ts-expect-error: a submission has no such field; the types come from the API description.
  return detail.noSuchField;
}
`,
    );
    execFileSync(TSC, ['-p', 'tsconfig.json'], { cwd: project, stdio: 'pipe' });
    // The same file with the expectation removed must fail: the check above can fail.
    const broken = fs
      .readFileSync(path.join(project, 'consumer.ts'), 'utf8')
      .replace(/ *\/\/ @ts-expect-error.*\n/, '');
    fs.writeFileSync(path.join(project, 'consumer.ts'), broken);
    expect(() => execFileSync(TSC, ['-p', 'tsconfig.json'], { cwd: project, stdio: 'pipe' })).toThrow();
  });

  // The package's engines name every maintained line; each runs the same two scripts.
  it.each(Object.keys(OTHER_LINES) as Array<keyof typeof OTHER_LINES>)(
    'runs from ES modules and CommonJS on Node %s too',
    async (line) => {
      const node = await nodeOfLine(line);
      const { stdout } = await promisify(execFile)(node, ['--version'], { encoding: 'utf8' });
      expect(stdout.trim()).toBe(`v${OTHER_LINES[line]}`);
      const sequence = await run('sequence.mjs', { BASE: service.url, KEY: account.apiKey }, node);
      expect(sequence).toMatchObject({ status: 'completed', replayedSame: true, pdf: '%PDF-' });
      const receiverOut = await run(
        'receiver.cjs',
        { BASE: service.url, KEY: account.apiKey, SECRET: secret, OLD: 'whsec_an_old_secret' },
        node,
      );
      expect(receiverOut).toMatchObject({
        verified: true,
        forged: 'bad_signature',
        errorIsTyped: true,
        status: 404,
      });
      const manifest = JSON.parse(
        fs.readFileSync(path.join(ROOT, 'packages/client/package.json'), 'utf8'),
      ) as {
        engines: { node: string };
      };
      expect(manifest.engines.node).toBe('>=22.12.0');
    },
  );
});
