// The store a benchmark runs against: the embedded SQLite default in a temporary DATA_DIR, or
// a fresh PostgreSQL database (created here, dropped afterwards) for `--store postgres`.
// `query` reads the service's tables over a separate read-only connection, so measuring puts
// no load on the API.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function openBenchStore(kind, name) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `healthspan-${name}-`));
  if (kind === 'sqlite') {
    const Database = (await import('better-sqlite3')).default;
    let db;
    return {
      kind,
      env: { DATA_DIR: dataDir },
      label: 'SQLite',
      // Opened on first use: the service creates the file.
      query(sql, params = []) {
        db ??= new Database(path.join(dataDir, 'healthspan.sqlite'), { readonly: true });
        return db.prepare(sql).all(...params);
      },
      /** `column in (<ids>)` for this dialect, with one parameter. */
      inIds: (column) => `${column} in (select value from json_each(?))`,
      /** The database's size in bytes: its pages (those still in the write-ahead log included). */
      async size() {
        db ??= new Database(path.join(dataDir, 'healthspan.sqlite'), { readonly: true });
        return db
          .prepare('select page_count * page_size as b from pragma_page_count(), pragma_page_size()')
          .get().b;
      },
      /** Bytes by table, its indexes included (SQLite's `dbstat`). */
      async tableSizes() {
        db ??= new Database(path.join(dataDir, 'healthspan.sqlite'), { readonly: true });
        const rows = db
          .prepare(
            'select coalesce(m.tbl_name, d.name) t, sum(d.pgsize) b from dbstat d left join sqlite_schema m on m.name = d.name group by 1',
          )
          .all();
        return Object.fromEntries(rows.map((r) => [r.t, r.b]));
      },
      idsParam: (ids) => JSON.stringify(ids),
      async close() {
        db?.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  if (kind !== 'postgres') throw new Error(`--store must be sqlite or postgres, got ${kind}`);
  const pg = (await import('pg')).default;
  const dbName = `hs_bench_${Date.now().toString(36)}`;
  const adminClient = new pg.Client({ connectionString: ADMIN_URL });
  await adminClient.connect();
  await adminClient.query(`create database ${dbName}`);
  await adminClient.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${dbName}`;
  const pool = new pg.Pool({ connectionString: url.toString(), max: 2 });
  // Shared by every process of the run, as a deployment would set them (docs/deployment.md).
  const secret = 'bench-secret-bench-secret-bench-secret-0123456789';
  return {
    kind,
    env: {
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      DOWNLOAD_SIGNING_SECRET: secret,
      WEBHOOK_SECRETS_KEY: secret,
    },
    label: 'PostgreSQL',
    async query(sql, params = []) {
      let i = 0;
      const text = sql.replace(/\?/g, () => `$${++i}`);
      return (await pool.query(text, params)).rows;
    },
    inIds: (column) => `${column} = any(?::uuid[])`,
    /**
     * The server's processes by whose work they do: this database's backends (the service's
     * connections, this bench's and autovacuum's here), the server's own (WAL writer,
     * checkpointer, background writer: shared by every database), and other databases'
     * backends (other work on a shared machine, left out of the figures).
     */
    async postgresPids() {
      const { rows } = await pool.query(
        'select pid, datname = current_database() ours, datname is null shared from pg_stat_activity',
      );
      return {
        ours: new Set(rows.filter((r) => r.ours).map((r) => String(r.pid))),
        shared: new Set(rows.filter((r) => r.shared).map((r) => String(r.pid))),
      };
    },
    /** The database's size in bytes (its files, TOAST included; not the write-ahead log). */
    async size() {
      return Number((await pool.query('select pg_database_size(current_database()) b')).rows[0].b);
    },
    /** Bytes by table, its TOAST and indexes included. */
    async tableSizes() {
      const { rows } = await pool.query(
        "select relname t, pg_total_relation_size(oid) b from pg_class where relkind = 'r' and relnamespace = 'public'::regnamespace",
      );
      return Object.fromEntries(rows.map((r) => [r.t, Number(r.b)]));
    },
    idsParam: (ids) => ids,
    async close() {
      await pool.end();
      const again = new pg.Client({ connectionString: ADMIN_URL });
      await again.connect();
      await again.query(`drop database if exists ${dbName} with (force)`);
      await again.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
