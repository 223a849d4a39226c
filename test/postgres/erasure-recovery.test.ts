import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { type Sent, send, subjectStrings } from '../helpers/backup-drill.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  createAccount,
  getJson,
  startTestService,
  type TestAccount,
  type TestService,
  tempDataDir,
} from '../helpers/service.js';

const exec = promisify(execFile);

/**
 * PostgreSQL recovered to a moment between an erasure's `202` and its completion (docs/backup.md,
 * "Faults"): the erasure is pending in the recovered database and completed in the ledger. No
 * process may serve it, an API-only one included, until the replay has seen that erasure
 * through; a replay killed after it moved the database's position is refused at start too, and
 * run again it finishes the erasure, with its `completed` entry in the ledger once.
 */
describe('a database recovered between an erasure and its completion', () => {
  it('is not served, by any role, until the replay has finished the erasure it holds pending', async () => {
    const dataDir = tempDataDir();
    const dump = path.join(tempDataDir(), 'healthspan.dump');
    const databases: TestDatabase[] = [];
    const running: TestService[] = [];
    const start = async (env: Record<string, string>, role: 'api' | 'worker') => {
      const service = await startTestService(env, role);
      running.push(service);
      return service;
    };
    try {
      const live = await createTestDatabase();
      databases.push(live);
      const liveEnv = { DATA_DIR: dataDir, DATABASE_URL: live.url };
      const api = await start(liveEnv, 'api');
      const account = await createAccount(api);
      const s = subjectStrings('s');
      const erased = [
        await send(api, account, { ...s, submission: `${s.submission}-1` }),
        await send(api, account, { ...s, submission: `${s.submission}-2` }),
      ];
      const kept = await send(api, account, subjectStrings('k'));
      const requested = await fetch(`${api.url}/v1/subjects/${encodeURIComponent(s.subject)}`, {
        method: 'DELETE',
        headers: { 'x-api-key': account.apiKey },
      });
      expect(requested.status).toBe(202);
      const { erasureId } = (await requested.json()) as { erasureId: string };
      // The recovery point: the erasure acknowledged, no worker has run it yet.
      await exec('pg_dump', ['--format=custom', `--file=${dump}`, `--dbname=${live.url}`]);
      const worker = await start(liveEnv, 'worker');
      await waitUntil(
        async () =>
          (await getJson(api, `/v1/erasures/${erasureId}`, { 'x-api-key': account.apiKey })).json.status ===
          'completed',
        60_000,
        'the erasure completed on the live database',
      );
      for (const service of running.splice(0)) await service.stop();
      expect(worker.worker).toBeDefined();

      const recovered = await createTestDatabase();
      databases.push(recovered);
      await exec('pg_restore', ['--no-owner', `--dbname=${recovered.url}`, dump]);
      const env = { DATA_DIR: dataDir, DATABASE_URL: recovered.url, JOB_LEASE_SECONDS: '2' };
      await expect(start(env, 'api')).rejects.toThrow(/this database misses 1 erasure ledger entry/);

      const killed = await runCli({ ...env, HEALTHSPAN_KILL_AT: 'replay.entries' }, ['erasures', 'replay']);
      expect(killed.code).toBeNull();
      await expect(start(env, 'api')).rejects.toThrow(
        /a replay of the erasure ledger began on this database at .* and did not finish/,
      );
      const replay = await runCli(env, ['erasures', 'replay']);
      expect(replay.stderr).not.toMatch(/healthspan-admin:/);
      expect(replay.json).toEqual({ entries: 0, erasures: 0, resumed: 1, submissions: 2 });

      const served = await start(env, 'api');
      await expectServed(served, account, { erased, kept });
      expectCompletedOnce(dataDir, erasureId);
    } finally {
      for (const service of running) await service.stop();
      for (const database of databases) await database.drop();
    }
  });
});

async function expectServed(service: TestService, account: TestAccount, s: { erased: Sent[]; kept: Sent }) {
  const auth = { 'x-api-key': account.apiKey };
  for (const sent of s.erased) {
    expect((await getJson(service, `/v1/submissions/${sent.submissionId}`, auth)).status).toBe(404);
  }
  expect((await getJson(service, `/v1/submissions/${s.kept.submissionId}`, auth)).status).toBe(200);
}

/** The database's ledger (named by its store id) holds the erasure's `completed` entry once. */
function expectCompletedOnce(dataDir: string, erasureId: string): void {
  const [ledger, ...others] = fs.readdirSync(dataDir).filter((n) => /^erasure-ledger-.+\.jsonl$/.test(n));
  expect(others).toEqual([]);
  const entries = fs
    .readFileSync(path.join(dataDir, String(ledger)), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { kind: string; erasureId: string | null });
  expect(entries.filter((e) => e.erasureId === erasureId).map((e) => e.kind)).toEqual([
    'requested',
    'completed',
  ]);
}
