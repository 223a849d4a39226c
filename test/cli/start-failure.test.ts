import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_DATABASE_URL,
  createTestDatabase,
  type TestDatabase,
  tableCount,
} from '../helpers/database.js';
import { waitUntil } from '../helpers/pipeline.js';
import { freePort } from '../helpers/processes.js';
import { tempDataDir, testStoreKind } from '../helpers/service.js';

/**
 * A process that cannot start says why in one line naming the setting and the fix (issue 38),
 * the same line for `npm start` (`node dist/server.js`) and `healthspan-admin serve`, and the other
 * commands that open the store say the same sentence. The real processes run (`npm run build`
 * first), at the log level a deployment has, so a warning printed before the failure would show.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/healthspan-admin');
const SERVER = path.join(ROOT, 'dist/server.js');
/** A password that must never be printed. */
const PASSWORD = 'pg-password-canary';
const SECRETS = /DOWNLOAD_SIGNING_SECRET|WEBHOOK_SECRETS_KEY/;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function baseEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return {
    ...process.env,
    LOG_LEVEL: 'info',
    HOST: '127.0.0.1',
    DOWNLOAD_SIGNING_SECRET: '',
    WEBHOOK_SECRETS_KEY: '',
    WEBHOOK_ALLOW_INSECURE: '',
    DATA_DIR: tempDataDir(),
    ...env,
  };
}

function collect(child: ChildProcess): { stdout: () => string; stderr: () => string } {
  let stdout = '';
  let stderr = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  return { stdout: () => stdout, stderr: () => stderr };
}

/** Runs a command that should end by itself; past the deadline it is killed, and the test fails on its code. */
async function runToExit(command: string, args: string[], env: Record<string, string>): Promise<Run> {
  const child = spawn(command, args, {
    env: baseEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
  const out = collect(child);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => resolve(exitCode));
  });
  return { code, stdout: out.stdout(), stderr: out.stderr() };
}

/** The two ways an operator starts the service. */
const STARTS: Array<[string, string, string[]]> = [
  ['node dist/server.js', process.execPath, [SERVER]],
  ['healthspan-admin serve', BIN, ['serve']],
];

async function expectStartsToFail(env: Record<string, string>, sentence: string): Promise<void> {
  for (const [name, command, args] of STARTS) {
    const run = await runToExit(command, args, env);
    expect(run.code, `${name}: ${run.stderr}`).toBe(1);
    expect(run.stderr, name).toBe(`healthspan: failed to start: ${sentence}\n`);
    expect(run.stdout + run.stderr, name).not.toMatch(SECRETS);
    expect(run.stdout + run.stderr, name).not.toContain(PASSWORD);
  }
}

/** The commands that open an existing store, and migrate, which may create one. */
async function expectCommandsToFail(env: Record<string, string>, sentence: string): Promise<void> {
  for (const args of [['tenants', 'list'], ['migrate']]) {
    const run = await runToExit(BIN, args, env);
    expect(run.code, args.join(' ')).toBe(1);
    expect(run.stderr, args.join(' ')).toBe(`healthspan-admin: ${sentence}\n`);
    expect(run.stdout, args.join(' ')).toBe('');
  }
}

/** PostgreSQL's URL for the tests, changed by `edit`, with a password that must not be printed. */
function adminUrl(edit: (url: URL) => void): URL {
  const url = new URL(ADMIN_DATABASE_URL);
  url.password = PASSWORD;
  edit(url);
  return url;
}

describe('a database that cannot be opened', () => {
  it('nothing listening on the port: asks whether PostgreSQL runs there', async () => {
    const port = await freePort();
    const url = adminUrl((u) => {
      u.hostname = '127.0.0.1';
      u.port = String(port);
    });
    const sentence = `DATABASE_URL (postgresql://127.0.0.1:${port}${url.pathname}): nothing accepts connections at 127.0.0.1:${port}; is PostgreSQL running and listening on that port? Start it, or correct the host and port in DATABASE_URL.`;
    await expectStartsToFail({ DATABASE_URL: url.href }, sentence);
    await expectCommandsToFail({ DATABASE_URL: url.href }, sentence);
  });

  // These need the PostgreSQL server itself, which the sqlite project does not require. Not
  // registered there at all: CI refuses a skipped test.
  (testStoreKind() === 'postgres' ? describe : () => undefined)('on a PostgreSQL server that answers', () => {
    it('a database that does not exist: says how to create it', async () => {
      const name = `hs_missing_${randomBytes(4).toString('hex')}`;
      const url = adminUrl((u) => {
        u.pathname = `/${name}`;
      });
      const port = url.port || '5432';
      const user = url.username ? ` -U ${url.username}` : '';
      const sentence = `DATABASE_URL (postgresql://${url.hostname}:${port}/${name}) names the database "${name}", which does not exist on that server; create it (createdb -h ${url.hostname} -p ${port}${user} ${name}) or correct the database name in DATABASE_URL.`;
      await expectStartsToFail({ DATABASE_URL: url.href }, sentence);
      await expectCommandsToFail({ DATABASE_URL: url.href }, sentence);
    });

    it('a user that does not exist: says how to create it', async () => {
      const role = `hs_no_role_${randomBytes(4).toString('hex')}`;
      const url = adminUrl((u) => {
        u.username = role;
      });
      const port = url.port || '5432';
      const sentence = `DATABASE_URL (postgresql://${url.hostname}:${port}${url.pathname}): the user "${role}" does not exist on that server; create it (createuser -h ${url.hostname} -p ${port} ${role}) or put an existing user in DATABASE_URL.`;
      await expectStartsToFail({ DATABASE_URL: url.href }, sentence);
      await expectCommandsToFail({ DATABASE_URL: url.href }, sentence);
    });
  });
});

describe('the start around the database', () => {
  let database: TestDatabase | undefined;
  let databaseUrl = '';
  beforeAll(async () => {
    if (testStoreKind() === 'postgres') {
      database = await createTestDatabase();
      databaseUrl = database.url;
    }
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('a PORT another process holds: names PORT and suggests a free one, with no warning before it, and writes nothing', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve, reject) => {
      blocker.once('error', reject);
      blocker.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = blocker.address() as net.AddressInfo;
    const dataDir = tempDataDir();
    try {
      await expectStartsToFail(
        { DATABASE_URL: databaseUrl, PORT: String(port), DATA_DIR: dataDir },
        `PORT=${port} is already in use on 127.0.0.1 (another process listens there); stop that process, or set PORT to a free port (for example PORT=${port + 1}).`,
      );
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
    // Refused before the store was opened: no database made, no migration run.
    if (database) expect(await tableCount(database.url)).toBe(0);
    else expect(fs.readdirSync(dataDir).filter((n) => n.startsWith('healthspan.sqlite'))).toEqual([]);
  });

  it('warns of generated secrets once started, and only where processes can share the store (DATABASE_URL)', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [SERVER], {
      env: baseEnv({ DATABASE_URL: databaseUrl, PORT: String(port) }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = collect(child);
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    try {
      const lines = await waitUntil(
        async () => {
          if (child.exitCode !== null) throw new Error(`the server exited: ${out.stderr()}`);
          const all = out.stdout().split('\n').filter(Boolean);
          const started = all.findIndex((l) => l.includes('"msg":"healthspan listening"'));
          // The warning, when due, is the line after the one saying the process listens.
          return started >= 0 && all.length > started + (databaseUrl ? 1 : 0) ? all : undefined;
        },
        30_000,
        'the server to start',
      );
      const started = lines.findIndex((l) => l.includes('"msg":"healthspan listening"'));
      const before = lines.slice(0, started).join('\n');
      expect(before).not.toMatch(SECRETS);
      if (databaseUrl) {
        expect(JSON.parse(lines[started + 1]!)).toMatchObject({
          level: 'warn',
          msg: expect.stringMatching(
            /^DATABASE_URL is set but DOWNLOAD_SIGNING_SECRET and WEBHOOK_SECRETS_KEY are not: generated into DATA_DIR/,
          ),
        });
      } else {
        expect(out.stdout()).not.toMatch(SECRETS);
      }
      expect(out.stderr()).toBe('');
    } finally {
      child.kill('SIGTERM');
      await closed;
    }
  });
});
