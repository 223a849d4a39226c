import { describePostgres } from './connect.js';

/**
 * A database the process cannot open, said as one sentence an operator can act on: which
 * setting, what failed and the likely fix. It never holds the password.
 */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
}

interface Target {
  /** `postgresql://host:port/database` (describePostgres): no user, password or parameters. */
  where: string;
  host: string;
  port: string;
  database: string;
  user: string | undefined;
  password: string;
}

function targetOf(url: string): Target {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  const decode = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text;
    }
  };
  return {
    where: describePostgres(url),
    host: u?.hostname || 'localhost',
    port: u?.port || '5432',
    database: decode(u?.pathname.replace(/^\//, '') ?? '') || decode(u?.username ?? '') || 'postgres',
    user: u && u.username !== '' ? decode(u.username) : undefined,
    password: u ? decode(u.password) : '',
  };
}

/** The driver's own words, with the password taken out should a message ever quote it. */
function driverText(error: unknown, password: string): string {
  const e = error as { message?: unknown; errors?: unknown };
  let text = typeof e?.message === 'string' && e.message !== '' ? e.message : '';
  // Node's connect to a name with several addresses fails with an AggregateError and no message.
  if (text === '' && Array.isArray(e?.errors)) text = driverText(e.errors[0], password);
  if (text === '') text = String(error);
  return password === '' ? text : text.split(password).join('***');
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The `-h -p [-U]` options of PostgreSQL's own tools for this target. */
function toolOptions(t: Target, withUser: boolean): string {
  return `-h ${t.host} -p ${t.port}${withUser && t.user ? ` -U ${t.user}` : ''}`;
}

/**
 * What to tell the operator when opening a connection to `url` failed with `error`: PostgreSQL's
 * codes 3D000 (no such database), 28000 (role refused), 28P01 (password refused), and Node's
 * ECONNREFUSED, ENOTFOUND and timeouts; anything else with the driver's words.
 */
export function explainConnectFailure(error: unknown, url: string): string {
  const t = targetOf(url);
  const setting = `DATABASE_URL (${t.where})`;
  const text = driverText(error, t.password);
  const user = t.user === undefined ? 'the default user' : `the user "${t.user}"`;
  switch (codeOf(error)) {
    case '3D000': {
      const database = /^database "(.*)" does not exist/.exec(text)?.[1] ?? t.database;
      return `${setting} names the database "${database}", which does not exist on that server; create it (createdb ${toolOptions(t, true)} ${database}) or correct the database name in DATABASE_URL.`;
    }
    case '28000': {
      const role = /^role "(.*)" does not exist/.exec(text)?.[1];
      return role !== undefined
        ? `${setting}: the user "${role}" does not exist on that server; create it (createuser ${toolOptions(t, false)} ${role}) or put an existing user in DATABASE_URL.`
        : `${setting}: PostgreSQL refused ${user} (${text}); allow it in the server's pg_hba.conf or put another user in DATABASE_URL.`;
    }
    case '28P01':
      return `${setting}: PostgreSQL refused the password for ${user}; correct the password in DATABASE_URL (it is not shown here).`;
    case 'ECONNREFUSED':
      return `${setting}: nothing accepts connections at ${t.host}:${t.port}; is PostgreSQL running and listening on that port? Start it, or correct the host and port in DATABASE_URL.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${setting}: the host "${t.host}" could not be found; correct the host in DATABASE_URL.`;
    default:
      break;
  }
  if (/client password must be a string/.test(text)) {
    return `${setting}: the server asks a password of ${user} and DATABASE_URL gives none; add it (postgres://USER:PASSWORD@HOST:PORT/DATABASE).`;
  }
  if (/timeout/i.test(text)) {
    return `${setting}: no answer from ${t.host}:${t.port} in time; check that the host is reachable and PostgreSQL is running there.`;
  }
  return `${setting} could not be opened (${text}); check DATABASE_URL and that PostgreSQL is running.`;
}
