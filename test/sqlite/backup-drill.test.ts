import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import {
  assertRestored,
  completed,
  downloadLink,
  eraseSubject,
  send,
  subjectStrings,
} from '../helpers/backup-drill.js';
import { findInFiles, storeFiles } from '../helpers/byte-scan.js';
import { runCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  getJson,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
  tempDataDir,
  uniqueKey,
} from '../helpers/service.js';

/**
 * The restore drill on the embedded store (docs/backup.md): a backup taken while submissions
 * arrive, an erasure after it, the restore, and a service that must not bring the erased subject
 * back. Real processes: the service in this process, `backup create` and `backup restore` as the
 * operator's CLI.
 */

/** Submissions sent four at a time until stopped: each 202 with the time it was answered. */
function load(service: TestService, account: TestAccount) {
  const acknowledged: Array<{ submissionId: string; at: number }> = [];
  let stopping = false;
  const lane = async () => {
    while (!stopping) {
      const res = await postSubmission(
        service,
        bodyFor(account, (b) => {
          b.options.requestedOutputs = ['score'];
        }),
        { apiKey: account.apiKey, idempotencyKey: uniqueKey('load') },
      );
      if (res.status === 202)
        acknowledged.push({ submissionId: String(res.json.submissionId), at: Date.now() });
    }
  };
  const lanes = Promise.all([lane(), lane(), lane(), lane()]);
  return {
    acknowledged,
    stop: async () => {
      stopping = true;
      await lanes;
    },
  };
}

describe('backup and restore of the embedded store', () => {
  it('restores a backup taken under load without bringing back a subject erased since', async () => {
    const dataDir = tempDataDir();
    const backups = tempDataDir();
    const copy = path.join(backups, 'drill.sqlite');
    const env = { DATA_DIR: dataDir };

    const first = await startTestService(env);
    let account: TestAccount;
    let a: Awaited<ReturnType<typeof completed>>;
    let b: Awaited<ReturnType<typeof completed>>;
    let c: Awaited<ReturnType<typeof completed>>;
    let aLink: string;
    let beforeBackup: string[];
    try {
      account = await createAccount(first);
      a = await completed(first, account, await send(first, account, subjectStrings('a')));
      b = await completed(first, account, await send(first, account, subjectStrings('b')));
      aLink = await downloadLink(first, account, String(a.resultId));

      const running = load(first, account);
      await waitUntil(async () => running.acknowledged.length >= 5, 30_000, 'the load under way');
      const backupStart = Date.now();
      const created = await runCli(env, ['backup', 'create', '--to', copy]);
      await running.stop();
      expect(created.stderr).toBe('');
      expect(created.code).toBe(0);
      expect(created.json).toMatchObject({
        schemaVersion: Object.keys(MIGRATIONS).at(-1),
        file: 'drill.sqlite',
      });
      beforeBackup = running.acknowledged.filter((x) => x.at < backupStart).map((x) => x.submissionId);
      expect(beforeBackup.length).toBeGreaterThanOrEqual(5);

      await eraseSubject(first, account, a.strings.subject);
      expect(
        (await getJson(first, `/v1/submissions/${a.submissionId}`, { 'x-api-key': account.apiKey })).status,
      ).toBe(404);
      c = await completed(first, account, await send(first, account, subjectStrings('c')));
    } finally {
      await first.stop();
    }

    // The backup is consistent: it passes its check, and holds every submission acknowledged
    // before it started (and the erased subject, which the scan below must therefore find there).
    const verified = await runCli(env, ['backup', 'verify', copy]);
    expect(verified.json).toMatchObject({ verified: true });
    const inCopy = new SqliteDatabase(copy, { readonly: true });
    try {
      const ids = new Set(
        (inCopy.prepare('select id from submissions').all() as Array<{ id: string }>).map((r) => r.id),
      );
      expect(beforeBackup.filter((id) => !ids.has(id))).toEqual([]);
      expect(ids.has(a.submissionId)).toBe(true);
    } finally {
      inCopy.close();
    }
    expect(findInFiles([copy], [a.strings.subject, a.strings.lab])).toHaveLength(2);

    // The copy put back by hand, as an operator would (here in a directory of its own, with the
    // same ledger and key): the service refuses it, in one sentence.
    const byHand = tempDataDir();
    fs.cpSync(path.join(dataDir, 'secrets'), path.join(byHand, 'secrets'), { recursive: true });
    fs.copyFileSync(copy, path.join(byHand, 'healthspan.sqlite'));
    await expect(
      startTestService({ DATA_DIR: byHand, ERASURE_LEDGER: path.join(dataDir, 'erasure-ledger.jsonl') }),
    ).rejects.toThrow(
      /this database misses \d+ erasure ledger entries recorded since it was backed up; run "healthspan-admin erasures replay"/,
    );

    const restored = await runCli(env, ['backup', 'restore', copy]);
    expect(restored.stderr).not.toMatch(/healthspan-admin:/);
    expect(restored.code).toBe(0);
    expect(restored.json).toMatchObject({ accounts: 1, replay: { erasures: 1, submissions: 1 } });

    const second = await startTestService(env);
    try {
      await assertRestored(second, account, { erased: a, erasedLink: aLink, kept: b, after: c });
      const audit = await runCli(env, ['audit', 'list', '--tenant', account.tenantId, '--limit', '1000']);
      const actions = ((audit.json?.events ?? []) as Array<{ action: string }>).map((e) => e.action);
      expect(actions).toEqual(expect.arrayContaining(['backup.restored', 'erasures.replayed']));
    } finally {
      await second.stop();
    }
    // Nothing of the erased subject in the restored files; the kept one is there (the scan finds).
    const files = storeFiles(dataDir);
    expect(findInFiles(files, [a.strings.subject, a.strings.submission, a.strings.lab])).toEqual([]);
    expect(findInFiles(files.slice(0, 1), [b.strings.subject])).toHaveLength(1);
  });
});
