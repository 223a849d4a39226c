import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { send, subjectStrings } from '../helpers/backup-drill.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  createAccount,
  errorOf,
  getJson,
  startTestService,
  type TestAccount,
  type TestService,
  tempDataDir,
} from '../helpers/service.js';
import { mountSmallFileSystem, type SmallFileSystem } from '../helpers/tmpfs.js';

/**
 * The erasure ledger on a real file system that fails under the running service (docs/backup.md,
 * "Faults"): full, read-only, its folder removed, its path turned into a directory. Each refuses
 * the erasure (`503` with `Retry-After`, nothing of it recorded: the ledger's bytes as they were,
 * the subject's data in place), an erasure job waits rather than fails, and once the fault is
 * gone the same request erases the subject and the service starts again on that ledger.
 */

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');
const PAGE = 4096;

let mounted: SmallFileSystem | undefined;
const running: TestService[] = [];

afterEach(async () => {
  for (const service of running.splice(0)) await service.stop();
  mounted?.free();
  mounted?.unmount();
  mounted = undefined;
});

async function start(env: Record<string, string>, role: 'all' | 'api' | 'worker' = 'all') {
  const service = await startTestService(env, role);
  running.push(service);
  return service;
}

async function stop(service: TestService): Promise<void> {
  running.splice(running.indexOf(service), 1);
  await service.stop();
}

function erase(service: TestService, account: TestAccount, subject: string) {
  return fetch(`${service.url}/v1/subjects/${encodeURIComponent(subject)}`, {
    method: 'DELETE',
    headers: { 'x-api-key': account.apiKey },
  });
}

async function expectRefused(service: TestService, account: TestAccount, subject: string, ledger: string) {
  const before = fs.existsSync(ledger) && fs.statSync(ledger).isFile() ? sha(ledger) : undefined;
  const res = await erase(service, account, subject);
  expect(res.status).toBe(503);
  expect(res.headers.get('retry-after')).toBe('30');
  const body = (await res.json()) as Record<string, unknown>;
  expect(errorOf(body).code).toBe('SERVICE_UNAVAILABLE');
  expect(errorOf(body).message).toBe(
    'This erasure cannot be recorded just now, and nothing of it was recorded; try again in 30 seconds.',
  );
  if (before !== undefined) expect(sha(ledger)).toBe(before);
}

async function expectErased(service: TestService, account: TestAccount, subject: string) {
  const res = await erase(service, account, subject);
  expect(res.status).toBe(202);
  const { erasureId } = (await res.json()) as { erasureId: string };
  await waitUntil(
    async () =>
      (await getJson(service, `/v1/erasures/${erasureId}`, { 'x-api-key': account.apiKey })).json.status ===
      'completed',
    60_000,
    'the erasure completed',
  );
}

const submission = (service: TestService, account: TestAccount, id: string) =>
  getJson(service, `/v1/submissions/${id}`, { 'x-api-key': account.apiKey });

/**
 * Erases subjects with nothing stored (two entries each) until the ledger's last page has less
 * room than the shortest entry (a `completed` one, about 330 bytes), but some: a line is cut there.
 */
async function leaveLessThanAnEntry(service: TestService, account: TestAccount, ledger: string) {
  for (let i = 0; ; i++) {
    const room = fs.existsSync(ledger) ? (PAGE - (fs.statSync(ledger).size % PAGE)) % PAGE : 0;
    if (room > 16 && room < 250) return room;
    if (i > 40) throw new Error('the ledger never ended where an entry would be cut');
    expect((await erase(service, account, `nobody-${randomUUID()}`)).status).toBe(202);
  }
}

describe('the erasure ledger on a file system that fails', () => {
  it('refuses an erasure on a full file system with nothing written, waits to complete one, and goes on once there is room', async () => {
    mounted = mountSmallFileSystem();
    const ledger = path.join(mounted.dir, 'erasure-ledger.jsonl');
    const env = {
      DATA_DIR: tempDataDir(),
      ERASURE_LEDGER: ledger,
      JOB_MAX_ATTEMPTS: '1',
      JOB_RETRY_BASE_MS: '50',
    };
    const api = await start(env, 'api');
    const account = await createAccount(api);
    const sent = await send(api, account, subjectStrings('full'));
    await leaveLessThanAnEntry(api, account, ledger);

    // The line would fit in part (the room left in the file's last page): the append writes
    // what fits, finds no more room, and cuts itself back.
    mounted.fill();
    await expectRefused(api, account, sent.strings.subject, ledger);
    expect((await submission(api, account, sent.submissionId)).status).toBe(200);
    expect(api.logs.join('')).toContain('its file system is full: free space there');

    // With room again the request is recorded; the erasure's completion meets a full file
    // system and waits (retried past JOB_MAX_ATTEMPTS, never failed), the data whole meanwhile.
    mounted.free();
    const requested = await erase(api, account, sent.strings.subject);
    expect(requested.status).toBe(202);
    const { erasureId } = (await requested.json()) as { erasureId: string };
    await leaveLessThanAnEntry(api, account, ledger);
    mounted.fill();
    const worker = await start(env, 'worker');
    await waitUntil(
      async () => {
        const job = await worker.store.system.db
          .selectFrom('jobs')
          .select(['attempts', 'status'])
          .where('submission_id', '=', sent.submissionId)
          .where('type', '=', 'subject.erase')
          .executeTakeFirst();
        return job !== undefined && job.attempts >= 2 && job.status !== 'failed';
      },
      60_000,
      'the erasure job retried past its attempts',
    );
    expect((await submission(api, account, sent.submissionId)).status).toBe(200);
    mounted.free();
    await waitUntil(
      async () =>
        (await getJson(api, `/v1/erasures/${erasureId}`, { 'x-api-key': account.apiKey })).json.status ===
        'completed',
      60_000,
      'the erasure completed once there was room',
    );
    expect((await submission(api, account, sent.submissionId)).status).toBe(404);
    await stop(worker);
    await stop(api);

    // Every line whole, and the service starts on it.
    expect(fs.readFileSync(ledger, 'utf8').endsWith('\n')).toBe(true);
    const again = await start(env);
    await expectErased(again, account, 'nobody-after');
  });

  it('refuses erasures while the file system is read-only, its folder is gone, or its path is a directory', async () => {
    mounted = mountSmallFileSystem();
    const folder = path.join(mounted.dir, 'ledger');
    const ledger = path.join(folder, 'erasure-ledger.jsonl');
    const env = { DATA_DIR: tempDataDir(), ERASURE_LEDGER: ledger };
    const service = await start(env);
    const account = await createAccount(service);
    await expectErased(service, account, 'first');
    const sent = await send(service, account, subjectStrings('faults'));

    mounted.readOnly(true);
    await expectRefused(service, account, sent.strings.subject, ledger);
    expect(service.logs.join('')).toContain('its file system is read-only: mount it read-write');
    mounted.readOnly(false);

    // The folder removed: never started again empty (the database has applied its entries).
    const kept = fs.readFileSync(ledger);
    fs.rmSync(folder, { recursive: true });
    await expectRefused(service, account, sent.strings.subject, ledger);
    expect(fs.existsSync(folder)).toBe(false);
    expect(service.logs.join('')).toContain('the file or its folder was removed while the service ran');
    fs.mkdirSync(folder);
    fs.writeFileSync(ledger, kept);

    // The path turned into a directory.
    fs.rmSync(ledger);
    fs.mkdirSync(ledger);
    await expectRefused(service, account, sent.strings.subject, ledger);
    expect(service.logs.join('')).toContain('the path is a directory now, not the ledger file');
    expect((await submission(service, account, sent.submissionId)).status).toBe(200);
    await stop(service);
    await expect(start(env)).rejects.toThrow(
      `the erasure ledger ${ledger} is a directory, not the ledger file: set ERASURE_LEDGER to the ledger file itself, or put the file back there (docs/backup.md)`,
    );

    fs.rmdirSync(ledger);
    fs.writeFileSync(ledger, kept);
    const again = await start(env);
    await expectErased(again, account, sent.strings.subject);
    expect((await submission(again, account, sent.submissionId)).status).toBe(404);
  });
});
