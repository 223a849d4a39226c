import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  assertRestored,
  completed,
  downloadLink,
  eraseSubject,
  type Sent,
  send,
  subjectStrings,
} from '../helpers/backup-drill.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { createAccount, startTestService, tempDataDir } from '../helpers/service.js';

const exec = promisify(execFile);

/**
 * The restore drill on PostgreSQL, with its own tools as docs/backup.md gives them: `pg_dump` of
 * the live database, an erasure after it, `pg_restore` into a new database, and a service that
 * refuses it until `erasures replay` has run; then the drill's assertions hold.
 */
describe('backup and restore on PostgreSQL', () => {
  it('refuses a database restored from pg_dump until the erasures made since are replayed', async () => {
    const dataDir = tempDataDir();
    const dump = path.join(tempDataDir(), 'healthspan.dump');
    const databases: TestDatabase[] = [];
    try {
      const live = await createTestDatabase();
      databases.push(live);
      const first = await startTestService({ DATA_DIR: dataDir, DATABASE_URL: live.url });
      let account: Awaited<ReturnType<typeof createAccount>>;
      let a: Sent;
      let b: Sent;
      let c: Sent;
      let aLink: string;
      try {
        account = await createAccount(first);
        a = await completed(first, account, await send(first, account, subjectStrings('a')));
        b = await completed(first, account, await send(first, account, subjectStrings('b')));
        aLink = await downloadLink(first, account, String(a.resultId));
        await exec('pg_dump', ['--format=custom', `--file=${dump}`, `--dbname=${live.url}`]);
        await eraseSubject(first, account, a.strings.subject);
        c = await completed(first, account, await send(first, account, subjectStrings('c')));
      } finally {
        await first.stop();
      }

      const restored = await createTestDatabase();
      databases.push(restored);
      await exec('pg_restore', ['--no-owner', `--dbname=${restored.url}`, dump]);
      const env = { DATA_DIR: dataDir, DATABASE_URL: restored.url };
      await expect(startTestService(env)).rejects.toThrow(
        /this database misses \d+ erasure ledger entries recorded since it was backed up; run "healthspan-admin erasures replay"/,
      );
      const replay = await runCli(env, ['erasures', 'replay']);
      expect(replay.stderr).not.toMatch(/healthspan-admin:/);
      expect(replay.json).toMatchObject({ erasures: 1, submissions: 1 });

      const second = await startTestService(env);
      try {
        await assertRestored(second, account, { erased: a, erasedLink: aLink, kept: b, after: c });
      } finally {
        await second.stop();
      }
    } finally {
      for (const database of databases) await database.drop();
    }
  });
});
