import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { eraseSubject } from '../helpers/backup-drill.js';
import { runCli } from '../helpers/cli.js';
import { createAccount, startTestService, tempDataDir } from '../helpers/service.js';

/**
 * What backup and restore refuse (docs/backup.md), each with one clear sentence and nothing
 * written: a backup path that exists, a cut or changed backup, one from a newer schema, a restore
 * while the service runs; and the start refuses a ledger that was edited, cut or lost, until the
 * operator's audited override.
 */

const sha = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('what backup and restore refuse', () => {
  it('refuses bad backups, a restore while the service runs, and a ledger edited, cut or lost', async () => {
    const dataDir = tempDataDir();
    const backups = tempDataDir();
    const env = { DATA_DIR: dataDir };
    const db = path.join(dataDir, 'healthspan.sqlite');
    const ledger = path.join(dataDir, 'erasure-ledger.jsonl');
    const copy = path.join(backups, 'good.sqlite');
    let tenantId: string;

    const service = await startTestService(env);
    try {
      const account = await createAccount(service);
      tenantId = account.tenantId;
      await eraseSubject(service, account, 'never-sent-1');
      expect((await runCli(env, ['backup', 'create', '--to', copy])).code).toBe(0);
      const manifest = fs.readFileSync(`${copy}.manifest.json`, 'utf8');

      const again = await runCli(env, ['backup', 'create', '--to', copy]);
      expect(again.code).toBe(1);
      expect(again.stderr).toBe(
        `healthspan-admin: ${copy} exists already: a backup never replaces a file; choose a new path\n`,
      );
      expect(fs.readFileSync(`${copy}.manifest.json`, 'utf8')).toBe(manifest);

      const running = await runCli(env, ['backup', 'restore', copy]);
      expect(running.code).toBe(1);
      expect(running.stderr).toMatch(/is in use \(the service is running\): stop every process using it/);
      expect(fs.readdirSync(dataDir).filter((n) => n.includes('.partial-'))).toEqual([]);
      await eraseSubject(service, account, 'never-sent-2');
    } finally {
      await service.stop();
    }
    const dbBefore = sha(db);
    const refusedRestore = async (file: string, message: RegExp, backupIsSound = false) => {
      const verify = await runCli(env, ['backup', 'verify', file]);
      expect(verify.code).toBe(backupIsSound ? 0 : 1);
      if (!backupIsSound) expect(verify.stderr).toMatch(message);
      const restore = await runCli(env, ['backup', 'restore', file]);
      expect(restore.code).toBe(1);
      expect(restore.stderr).toMatch(message);
      expect(sha(db)).toBe(dbBefore);
      expect(fs.readdirSync(dataDir).filter((n) => n.includes('.partial-'))).toEqual([]);
    };
    const variant = (name: string, change: (bytes: Buffer) => Buffer, manifest?: (m: string) => string) => {
      const file = path.join(backups, name);
      fs.writeFileSync(file, change(fs.readFileSync(copy)));
      const text = fs.readFileSync(`${copy}.manifest.json`, 'utf8');
      fs.writeFileSync(`${file}.manifest.json`, manifest ? manifest(text) : text);
      return file;
    };
    await refusedRestore(
      variant('cut.sqlite', (b) => b.subarray(0, b.length / 2)),
      /is not the file its manifest describes \(size or SHA-256 differ\): it was cut or changed/,
    );
    await refusedRestore(
      variant('changed.sqlite', (b) => {
        const changed = Buffer.from(b);
        changed[changed.length - 100] = (changed[changed.length - 100]! + 1) % 256;
        return changed;
      }),
      /it was cut or changed/,
    );
    await refusedRestore(
      variant(
        'newer.sqlite',
        (b) => b,
        (m) => m.replace(JSON.stringify(Object.keys(MIGRATIONS).at(-1)), '"9999_from_the_future"'),
      ),
      /has schema 9999_from_the_future, newer than this version \([^)]+\) knows/,
    );

    // The ledger: edited, cut, lost. Each refuses the start; a restore refuses it too.
    const good = fs.readFileSync(ledger, 'utf8');
    const lines = good.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const refusedStart = async (message: RegExp) => {
      await expect(startTestService(env)).rejects.toThrow(message);
    };
    fs.writeFileSync(
      ledger,
      good.replace(/"at":"(\d)/, (_m, d: string) => `"at":"${(Number(d) + 1) % 10}`),
    );
    await refusedStart(
      /the erasure ledger .* is damaged at line 1 \(it was changed, or written with another key\)/,
    );
    await refusedRestore(copy, /is damaged at line 1.*nothing was restored/, true);
    fs.writeFileSync(ledger, `${lines.slice(0, -1).join('\n')}\n`);
    await refusedStart(
      /does not hold this database's last erasure entry \(\d+\): it was cut, or it is another database's ledger/,
    );
    fs.rmSync(ledger);
    await refusedStart(/the erasure ledger .* is missing, but this database applied \d+ of its entries/);

    const unconfirmed = await runCli(env, ['erasures', 'override-ledger']);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toMatch(/run it again with --confirm if you accept that/);
    expect(fs.existsSync(ledger)).toBe(false);
    const override = await runCli(env, ['erasures', 'override-ledger', '--confirm']);
    expect(override.code).toBe(0);
    expect(override.json).toMatchObject({ accounts: 1, keptAs: null });
    const restarted = await startTestService(env);
    await restarted.stop();
    const audit = await runCli(env, [
      'audit',
      'list',
      '--tenant',
      tenantId,
      '--action',
      'erasures.ledger_overridden',
    ]);
    expect((audit.json?.events as unknown[] | undefined)?.length).toBe(1);
  });
});

describe('a hand copy of a live store', () => {
  it('is named damaged, with what to restore instead, by the replay and the start alike', async () => {
    const dataDir = tempDataDir();
    const service = await startTestService({ DATA_DIR: dataDir });
    try {
      const account = await createAccount(service);
      await eraseSubject(service, account, 'never-sent');
    } finally {
      await service.stop();
    }
    // What a copy taken under writes can hold: pages of two moments, here pages overwritten.
    const db = path.join(dataDir, 'healthspan.sqlite');
    const bytes = fs.readFileSync(db);
    bytes.fill(0x5a, 4096, bytes.length);
    fs.writeFileSync(db, bytes);
    const sentence = new RegExp(
      `the store in DATA_DIR=${dataDir} is damaged \\(.+\\): a copy of a live database's files is not a backup; restore one that "healthspan-admin backup create" made, with "healthspan-admin backup restore" \\(docs/backup.md\\)`,
    );
    const replay = await runCli({ DATA_DIR: dataDir }, ['erasures', 'replay']);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toMatch(sentence);
    await expect(startTestService({ DATA_DIR: dataDir })).rejects.toThrow(sentence);
  });
});
