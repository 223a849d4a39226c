import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Config, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startService } from '../../src/service.js';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, type TestDatabase, tableCount } from '../helpers/database.js';
import { startTestService, tempDataDir } from '../helpers/service.js';

/**
 * Each erasure ledger belongs to one database (docs/backup.md, "Which database a ledger belongs
 * to"): the README's walkthrough on the embedded store and then PostgreSQL in the same DATA_DIR
 * each get their own; a new database never takes over another's ledger, one that applied entries
 * never appends to another's, and a restore never replays another's; each with its own sentence,
 * and a refused start writes nothing.
 */

const databases: TestDatabase[] = [];
afterAll(async () => {
  for (const database of databases) await database.drop();
});

async function database(): Promise<TestDatabase> {
  const created = await createTestDatabase();
  databases.push(created);
  return created;
}

/** An account and one erasure, with the operator's CLI, on the store `env` names. */
async function eraseOne(env: Record<string, string>): Promise<string> {
  const quick = await runCli(env, ['quickstart', '--name', 'Clinic']);
  expect(quick.stderr).toBe('');
  const tenantId = String(quick.json?.tenantId);
  const erase = await runCli(env, ['subjects', 'erase', '--tenant', tenantId, '--subject', 'subj-1']);
  expect(erase.stderr).toBe('');
  expect(erase.json?.status).toBe('completed');
  return tenantId;
}

function storeIdOf(ledgerFile: string): string {
  const [first] = fs.readFileSync(ledgerFile, 'utf8').split('\n');
  return String((JSON.parse(String(first)) as { store: string }).store);
}

/** The embedded store's service, started in this process (the project runs PostgreSQL's by default). */
async function startEmbedded(env: Record<string, string>) {
  const config: Config = loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env });
  return startService(config, { clock: () => new Date(), logger: createLogger('silent') });
}

describe('which database an erasure ledger belongs to', () => {
  it('gives the embedded store and a new PostgreSQL database each their own, and refuses to mix them', async () => {
    const dataDir = tempDataDir();
    const embeddedLedger = path.join(dataDir, 'erasure-ledger.jsonl');
    await eraseOne({ DATA_DIR: dataDir });
    const embeddedStore = storeIdOf(embeddedLedger);

    // The README's walkthrough, then docs/postgresql.md with a new database, in the same DATA_DIR.
    const first = await database();
    const pgEnv = { DATA_DIR: dataDir, DATABASE_URL: first.url };
    await eraseOne(pgEnv);
    const [pgLedger, ...more] = fs.readdirSync(dataDir).filter((n) => /^erasure-ledger-.+\.jsonl$/.test(n));
    expect(more).toEqual([]);
    const pgStore = storeIdOf(path.join(dataDir, String(pgLedger)));
    expect(pgLedger).toBe(`erasure-ledger-${pgStore}.jsonl`);
    expect(pgStore).not.toBe(embeddedStore);
    await (await startTestService(pgEnv)).stop();
    await (await startEmbedded({ DATA_DIR: dataDir })).stop();

    // A database that applied entries, pointed at another's ledger.
    await expect(startTestService({ ...pgEnv, ERASURE_LEDGER: embeddedLedger })).rejects.toThrow(
      `the erasure ledger ${embeddedLedger} belongs to another database (store ${embeddedStore}), not this one (store ${pgStore}): set ERASURE_LEDGER to this database's own ledger (docs/backup.md)`,
    );

    // A new database, pointed at a ledger with entries: refused before anything is created.
    const fresh = await database();
    await expect(
      startTestService({ DATA_DIR: dataDir, DATABASE_URL: fresh.url, ERASURE_LEDGER: embeddedLedger }),
    ).rejects.toThrow(
      `the erasure ledger ${embeddedLedger} holds the entries of another database (store ${embeddedStore}), and this database is new: give it a ledger of its own by setting ERASURE_LEDGER to a new path`,
    );
    expect(await tableCount(fresh.url)).toBe(0);

    // The embedded database gone, its ledger left: a new one is not created on it.
    for (const name of fs.readdirSync(dataDir).filter((n) => n.startsWith('healthspan.sqlite'))) {
      fs.rmSync(path.join(dataDir, name));
    }
    await expect(startEmbedded({ DATA_DIR: dataDir })).rejects.toThrow(
      `the erasure ledger ${embeddedLedger} holds the entries of another database (store ${embeddedStore}), and this database is new`,
    );
    expect(fs.existsSync(path.join(dataDir, 'healthspan.sqlite'))).toBe(false);
  });

  it('refuses to restore a backup against another database’s ledger, and to override one', async () => {
    const owner = tempDataDir();
    await eraseOne({ DATA_DIR: owner });
    const ownersLedger = path.join(owner, 'erasure-ledger.jsonl');
    const ownerStore = storeIdOf(ownersLedger);

    const other = tempDataDir();
    const copy = path.join(tempDataDir(), 'other.sqlite');
    await eraseOne({ DATA_DIR: other });
    expect((await runCli({ DATA_DIR: other }, ['backup', 'create', '--to', copy])).code).toBe(0);
    const otherStore = storeIdOf(path.join(other, 'erasure-ledger.jsonl'));
    const restore = await runCli({ DATA_DIR: other, ERASURE_LEDGER: ownersLedger }, [
      'backup',
      'restore',
      copy,
    ]);
    expect(restore.stderr).toBe(
      `healthspan-admin: the erasure ledger ${ownersLedger} belongs to another database (store ${ownerStore}), not the one this backup was taken of (store ${otherStore}): set ERASURE_LEDGER to that database's ledger (nothing was restored)\n`,
    );

    const before = fs.readFileSync(ownersLedger);
    const override = await runCli({ DATA_DIR: other, ERASURE_LEDGER: ownersLedger }, [
      'erasures',
      'override-ledger',
      '--confirm',
    ]);
    expect(override.stderr).toMatch(
      /belongs to another database .*; the override would take that database's ledger away from it/,
    );
    expect(fs.readFileSync(ownersLedger)).toEqual(before);
  });
});
