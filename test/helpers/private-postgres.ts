import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './processes.js';

const run = promisify(execFile);

/** Where Debian's `postgresql` package puts the server programs, one directory per version. */
const DEBIAN_ROOT = '/usr/lib/postgresql';

/**
 * The newest server version's `bin` directory holding `initdb` and `pg_ctl` (`PG_BINDIR`
 * overrides). Throws, never skips: a fault test that silently did not run proves nothing.
 */
export function findPostgresBinDir(): string {
  const has = (dir: string) =>
    fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'pg_ctl'));
  const override = process.env.PG_BINDIR;
  if (override) {
    if (has(override)) return override;
    throw new Error(`PG_BINDIR=${override} holds no initdb and pg_ctl`);
  }
  const versions = fs.existsSync(DEBIAN_ROOT)
    ? fs
        .readdirSync(DEBIAN_ROOT)
        .filter((v) => /^\d+(\.\d+)?$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const version of versions) {
    const dir = path.join(DEBIAN_ROOT, version, 'bin');
    if (has(dir)) return dir;
  }
  throw new Error(
    `The fault test runs its own PostgreSQL cluster and needs the server programs initdb and pg_ctl, ` +
      `found under ${DEBIAN_ROOT}/<version>/bin (Debian: apt-get install -y postgresql), or set PG_BINDIR ` +
      `to the directory that holds them. Found ${versions.length === 0 ? 'no versions' : `versions ${versions.join(', ')} without them`}.`,
  );
}

export type ShutdownMode = 'smart' | 'fast' | 'immediate';

/**
 * A PostgreSQL cluster of its own for one test file, so that stopping or restarting it cannot
 * disturb the tests running in parallel against the shared server. `initdb` into a temporary
 * directory, trust authentication, TCP on 127.0.0.1 and a free port, `fsync` and
 * `synchronous_commit` on (a 202 must survive an `immediate` stop, which is a crash), small
 * shared memory. PostgreSQL refuses to run as root: as root, the directory belongs to the
 * `postgres` user and the programs run through `runuser -u postgres --`.
 */
export class PrivatePostgres {
  private constructor(
    private readonly binDir: string,
    /** Holds the data directory, the server log and the Unix socket. */
    readonly baseDir: string,
    readonly port: number,
    private readonly runAs: string | undefined,
  ) {}

  /** Creates the cluster (not yet running). */
  static async create(): Promise<PrivatePostgres> {
    const binDir = findPostgresBinDir();
    const runAs = process.getuid?.() === 0 ? 'postgres' : undefined;
    const baseDir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-pg-'));
    try {
      if (runAs) {
        let ids: { uid: number; gid: number };
        try {
          ids = {
            uid: Number(execFileSync('id', ['-u', runAs], { encoding: 'utf8' }).trim()),
            gid: Number(execFileSync('id', ['-g', runAs], { encoding: 'utf8' }).trim()),
          };
        } catch {
          throw new Error(
            `running as root, the private PostgreSQL cluster must run as the "${runAs}" user, which does not exist`,
          );
        }
        fs.chownSync(baseDir, ids.uid, ids.gid);
      }
      const pg = new PrivatePostgres(binDir, baseDir, await freePort(), runAs);
      // --no-sync only skips flushing the freshly created template files (a crash of the machine
      // during the test fails the test anyway); the running server keeps fsync on.
      await pg.exec('initdb', [
        '--pgdata',
        pg.dataDir,
        '--username',
        'postgres',
        '--auth',
        'trust',
        '--encoding',
        'UTF8',
        '--no-sync',
      ]);
      fs.appendFileSync(
        path.join(pg.dataDir, 'postgresql.conf'),
        [
          '',
          '# healthspan fault test',
          "listen_addresses = '127.0.0.1'",
          `port = ${pg.port}`,
          `unix_socket_directories = '${baseDir}'`,
          'fsync = on',
          'synchronous_commit = on',
          'full_page_writes = on',
          'shared_buffers = 16MB',
          'max_connections = 60',
          'max_wal_size = 64MB',
          'logging_collector = off',
          '',
        ].join('\n'),
      );
      return pg;
    } catch (error) {
      fs.rmSync(baseDir, { recursive: true, force: true });
      throw error;
    }
  }

  get dataDir(): string {
    return path.join(this.baseDir, 'data');
  }

  get logFile(): string {
    return path.join(this.baseDir, 'server.log');
  }

  /** The cluster's `postgres` database as its superuser (trust authentication, no password). */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** Starts the server and waits until it accepts connections. */
  async start(): Promise<void> {
    await this.pgCtl(['start', '--wait', '--timeout', '30', '--log', this.logFile]);
  }

  /**
   * Stops the server: `fast` rolls back open transactions and disconnects everyone, `immediate`
   * kills it without a checkpoint (a crash: the next start replays the WAL).
   */
  async stop({ mode = 'fast' }: { mode?: ShutdownMode } = {}): Promise<void> {
    await this.pgCtl(['stop', '--wait', '--timeout', '30', '--mode', mode]);
  }

  /** `pg_ctl restart`: stop in `mode`, then start again, waiting until it accepts connections. */
  async restart({ mode = 'fast' }: { mode?: ShutdownMode } = {}): Promise<void> {
    await this.pgCtl(['restart', '--wait', '--timeout', '30', '--mode', mode, '--log', this.logFile]);
  }

  /** Stops the server if it runs (whatever happened before) and removes every file. */
  async destroy(): Promise<void> {
    try {
      await this.pgCtl(['stop', '--wait', '--timeout', '10', '--mode', 'immediate']);
    } catch {
      // Not running, or pg_ctl failed: the postmaster's pid file, if any, is the last word.
      try {
        const pid = Number(fs.readFileSync(path.join(this.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
        if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGKILL');
      } catch {
        // no pid file, or the process is already gone
      }
    }
    fs.rmSync(this.baseDir, { recursive: true, force: true });
  }

  /** The server log (for failure messages). */
  log(): string {
    try {
      return fs.readFileSync(this.logFile, 'utf8');
    } catch {
      return '';
    }
  }

  private pgCtl(args: string[]): Promise<void> {
    return this.exec('pg_ctl', ['--pgdata', this.dataDir, '--silent', ...args]);
  }

  private async exec(program: string, args: string[]): Promise<void> {
    const file = path.join(this.binDir, program);
    const [command, argv] = this.runAs ? ['runuser', ['-u', this.runAs, '--', file, ...args]] : [file, args];
    try {
      // Asynchronous on purpose: a test keeps sending requests while the server restarts. The
      // working directory is one the postgres user may enter (the test's may not be).
      await run(command, argv, { cwd: this.baseDir, timeout: 60_000, env: { ...process.env, LC_ALL: 'C' } });
    } catch (error) {
      const e = error as { stderr?: string; stdout?: string; message?: string };
      throw new Error(
        `${program} ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}\n${this.log().slice(-2000)}`,
      );
    }
  }
}
