import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FaultPoint } from '../../src/fault-points.js';
import { completed, eraseSubject, type Sent, send, subjectStrings } from '../helpers/backup-drill.js';
import { runCli } from '../helpers/cli.js';
import {
  createAccount,
  getJson,
  startTestService,
  type TestAccount,
  type TestService,
  tempDataDir,
} from '../helpers/service.js';

/**
 * A restore and its erasure replay killed at every step (`HEALTHSPAN_KILL_AT`, src/fault-points.ts),
 * and a backup killed at every step (docs/backup.md, "Faults"). After each kill the service
 * refuses to start, writing nothing to the database; the replay or the restore run again
 * converges (the erased subject gone, the kept one whole, each erasure completed once in the
 * ledger); a backup's name is there only when it verifies, and the next backup removes what the
 * killed one left.
 */

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

/** The database's own files (not SQLite's shared-memory index, which a read-only look may create). */
function databaseBytes(dataDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['healthspan.sqlite', 'healthspan.sqlite-wal']) {
    const file = path.join(dataDir, name);
    if (fs.existsSync(file)) out[name] = sha(file);
  }
  return out;
}

function clone(from: string): string {
  const to = tempDataDir();
  fs.cpSync(from, to, { recursive: true });
  return to;
}

interface Drill {
  dataDir: string;
  copy: string;
  account: TestAccount;
  erased: Sent[];
  kept: Sent;
}

/**
 * A store with subject A (three submissions) and B, backed up, then A erased: the state a
 * restore starts from. The service is stopped.
 */
async function prepare(): Promise<Drill> {
  const dataDir = tempDataDir();
  const copy = path.join(tempDataDir(), 'before-erasure.sqlite');
  const service = await startTestService({ DATA_DIR: dataDir });
  try {
    const account = await createAccount(service);
    const a = subjectStrings('a');
    const erased: Sent[] = [];
    for (const label of ['1', '2', '3']) {
      const strings = { ...a, submission: `${a.submission}-${label}` };
      erased.push(await completed(service, account, await send(service, account, strings)));
    }
    const kept = await completed(service, account, await send(service, account, subjectStrings('b')));
    expect((await runCli({ DATA_DIR: dataDir }, ['backup', 'create', '--to', copy])).code).toBe(0);
    await eraseSubject(service, account, a.subject);
    return { dataDir, copy, account, erased, kept };
  } finally {
    await service.stop();
  }
}

async function expectServedRight(service: TestService, drill: Drill): Promise<void> {
  const auth = { 'x-api-key': drill.account.apiKey };
  for (const sent of drill.erased) {
    expect((await getJson(service, `/v1/submissions/${sent.submissionId}`, auth)).status).toBe(404);
    expect((await getJson(service, `/v1/results/${sent.resultId}`, auth)).status).toBe(404);
  }
  const kept = await getJson(service, `/v1/submissions/${drill.kept.submissionId}`, auth);
  expect(kept.json.status).toBe('completed');
}

/** Each erasure's `completed` entry is in the ledger once. */
function expectCompletedOnce(dataDir: string): void {
  const entries = fs
    .readFileSync(path.join(dataDir, 'erasure-ledger.jsonl'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { kind: string; erasureId: string | null });
  const completions = entries.filter((e) => e.kind === 'completed').map((e) => e.erasureId);
  expect(completions.length).toBeGreaterThan(0);
  expect(new Set(completions).size).toBe(completions.length);
}

/** Each step, and what runs again after the kill there: either converges from any step. */
const RESTORE_STEPS: Array<readonly [FaultPoint, 'erasures replay' | 'backup restore']> = [
  ['restore.in-place', 'erasures replay'],
  ['restore.migrated', 'backup restore'],
  ['restore.recorded', 'erasures replay'],
  ['replay.entry', 'backup restore'],
  ['replay.entries', 'erasures replay'],
  // The jobs this process claimed are held under its lease: the rerun takes them back.
  ['erasure.running', 'erasures replay'],
  ['replay.erasures', 'backup restore'],
];

describe('a restore and its replay killed at every step', () => {
  let drill: Drill;
  beforeAll(async () => {
    drill = await prepare();
  });

  it.each(RESTORE_STEPS)(
    'killed at %s: refused until %s runs again, then the erased subject stays gone',
    async (step, rerun) => {
      const dataDir = clone(drill.dataDir);
      // A short lease: a kill mid-erasure leaves jobs leased to the dead process this long.
      const env = { DATA_DIR: dataDir, JOB_LEASE_SECONDS: '2' };
      const killed = await runCli({ ...env, HEALTHSPAN_KILL_AT: step }, ['backup', 'restore', drill.copy]);
      expect(killed.code).toBeNull();

      const bytes = databaseBytes(dataDir);
      await expect(startTestService(env)).rejects.toThrow(
        /erasure ledger (entry|entries) recorded since it was backed up|a replay of the erasure ledger began on this database at .* and did not finish/,
      );
      expect(databaseBytes(dataDir)).toEqual(bytes);

      const again = await runCli(
        env,
        rerun === 'erasures replay' ? ['erasures', 'replay'] : ['backup', 'restore', drill.copy],
      );
      expect(again.stderr).not.toMatch(/healthspan-admin:/);
      expect(again.code).toBe(0);
      const service = await startTestService(env);
      try {
        await expectServedRight(service, drill);
      } finally {
        await service.stop();
      }
      expectCompletedOnce(dataDir);
    },
  );

  it('killed with its jobs running, is finished by a start with ERASURE_REPLAY_ON_START', async () => {
    const dataDir = clone(drill.dataDir);
    const env = { DATA_DIR: dataDir, JOB_LEASE_SECONDS: '2' };
    const restore = await runCli({ ...env, HEALTHSPAN_KILL_AT: 'erasure.running' }, [
      'backup',
      'restore',
      drill.copy,
    ]);
    expect(restore.code).toBeNull();
    const service = await startTestService({ ...env, ERASURE_REPLAY_ON_START: 'true' });
    try {
      await expectServedRight(service, drill);
    } finally {
      await service.stop();
    }
    expectCompletedOnce(dataDir);
  });
});

const BACKUP_STEPS: FaultPoint[] = [
  'backup.copied',
  'backup.checked',
  'backup.manifest-written',
  'backup.named',
];

describe('a backup killed at every step', () => {
  let drill: Drill;
  beforeAll(async () => {
    drill = await prepare();
  });

  it.each(BACKUP_STEPS)(
    'killed at %s: no name that fails to verify, and the next backup cleans up',
    async (step) => {
      const dir = tempDataDir();
      const target = path.join(dir, 'healthspan.sqlite');
      const env = { DATA_DIR: drill.dataDir };
      const killed = await runCli({ ...env, HEALTHSPAN_KILL_AT: step }, ['backup', 'create', '--to', target]);
      expect(killed.code).toBeNull();
      const left = fs.readdirSync(dir).filter((n) => n.includes('.partial-'));
      const verify = await runCli(env, ['backup', 'verify', target]);
      if (step === 'backup.named') {
        // Named: it is whole and checked.
        expect(verify.code).toBe(0);
        expect(left).toEqual([]);
      } else {
        expect(verify.stderr).toBe(`healthspan-admin: there is no backup at ${target}\n`);
        expect(left.length).toBeGreaterThan(0);
      }

      const next = await runCli(env, ['backup', 'create', '--to', path.join(dir, 'next.sqlite')]);
      expect(next.code).toBe(0);
      const leftovers = next.json?.leftovers as { removed: string[]; bytes: number };
      expect(leftovers.removed.sort()).toEqual(left.sort());
      if (step === 'backup.named') {
        expect(leftovers.bytes).toBe(0);
      } else {
        expect(leftovers.bytes).toBeGreaterThan(0);
        // The killed backup's own name is free again: a new backup to it is made and verifies.
        expect((await runCli(env, ['backup', 'create', '--to', target])).code).toBe(0);
        expect((await runCli(env, ['backup', 'verify', target])).code).toBe(0);
      }
      expect(fs.readdirSync(dir).filter((n) => n.includes('.partial-'))).toEqual([]);
    },
  );
});
