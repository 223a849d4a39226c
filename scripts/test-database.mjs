// CI helper: `check` connects (exit 1 when it cannot), `create` makes a fresh, empty database for
// one test run and prints its URL, `drop URL` removes it (closing any connection left). Connects with TEST_DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/postgres. Needs `npm ci` first (it uses the pg driver).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const adminUrl = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';

async function admin(sql) {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

const [command, arg] = process.argv.slice(2);
if (command === 'check') {
  try {
    await admin('select 1');
  } catch (error) {
    process.stderr.write(`PostgreSQL at ${new URL(adminUrl).host}: ${error.message}\n`);
    process.exit(1);
  }
} else if (command === 'create') {
  const name = `hs_ci_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await admin(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  process.stdout.write(`${url}\n`);
} else if (command === 'drop' && arg) {
  const name = new URL(arg).pathname.slice(1);
  if (!/^hs_ci_[a-z0-9_]+$/.test(name)) throw new Error(`refusing to drop ${name}: not a CI test database`);
  await admin(`drop database if exists ${name} with (force)`);
} else {
  process.stderr.write('usage: node scripts/test-database.mjs check | create | drop URL\n');
  process.exit(2);
}
