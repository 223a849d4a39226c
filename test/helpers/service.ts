import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { generateApiKey } from '../../src/auth/api-keys.js';
import { type Clock, systemClock } from '../../src/clock.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { ListenTiming } from '../../src/http/listen-stream.js';
import { createLogger } from '../../src/logger.js';
import { type RunningService, startService } from '../../src/service.js';
import type { ServiceRole } from '../../src/service-role.js';
import { operatorOrigin } from '../../src/store/repositories/accounts.js';
import { createTestDatabase, testStoreKind } from './database.js';
import { tempDataDir } from './dirs.js';
import { objectStoreUnderTest } from './object-store-under-test.js';
import { TestReceiver } from './receiver.js';

export const EXAMPLE_PATH = path.resolve(import.meta.dirname, '../../examples/submission.json');

export function exampleBody(): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(EXAMPLE_PATH, 'utf8')) as Record<string, unknown>;
}

export { type TestStoreKind, testStoreKind } from './database.js';
export { tempDataDir } from './dirs.js';

export interface TestService extends RunningService {
  logs: string[];
  config: Config;
}

/**
 * Starts the real service on a free loopback port with its own data directory, on the store
 * under test (HEALTHSPAN_TEST_STORE): SQLite in that directory, or a fresh PostgreSQL database
 * that `stop()` drops. A DATABASE_URL in `env` is used as it is (and not dropped).
 */
export async function startTestService(
  env: Record<string, string> = {},
  role: ServiceRole = 'all',
  /** The service's clock: a test's own to move, or the real time when the test does not care. */
  options: { clock?: Clock; listenTiming?: Partial<ListenTiming>; rateLimitWindowMs?: number } = {},
): Promise<TestService> {
  const dataDir = env.DATA_DIR ?? tempDataDir();
  const database =
    env.DATABASE_URL === undefined && testStoreKind() === 'postgres' ? await createTestDatabase() : undefined;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    // Render threads at the process's priority: on a machine busy with other test files a niced
    // thread gets a sliver of a core. Priority is tested where it is the subject
    // (render-priority.test.ts).
    RENDER_NICE: '0',
    ...(database ? { DATABASE_URL: database.url } : {}),
    // The postgres-s3 project: report bytes in the run's object store.
    ...objectStoreUnderTest(),
    ...env,
  });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(String(chunk));
      cb();
    },
  });
  let service: RunningService;
  try {
    service = await startService(config, {
      logger: createLogger(config.logLevel, sink),
      role,
      clock: options.clock ?? systemClock,
      ...(options.listenTiming ? { listenTiming: options.listenTiming } : {}),
      ...(options.rateLimitWindowMs ? { rateLimitWindowMs: options.rateLimitWindowMs } : {}),
    });
  } catch (error) {
    await database?.drop();
    throw error;
  }
  if (database) {
    const stop = service.stop.bind(service);
    let stopped: Promise<void> | undefined;
    service.stop = () => {
      stopped ??= stop().finally(() => database.drop());
      return stopped;
    };
  }
  return Object.assign(service, { logs, config });
}

export interface TestAccount {
  tenantId: string;
  partnerId: string;
  keyId: string;
  apiKey: string;
}

/** A fresh tenant, partner and key per test, so tests never share state. */
export async function createAccount(
  service: RunningService,
  opts: { expiresAt?: Date | null; name?: string } = {},
): Promise<TestAccount> {
  const tenant = await service.store.system.accounts.createTenant(opts.name ?? 'Test tenant');
  const partner = await service.store.system.accounts.createPartner(tenant.tenantId, 'Test partner');
  const key = generateApiKey();
  const stored = await service.store.system.accounts.insertKey(
    {
      partnerId: partner.partnerId,
      keyHash: key.hash,
      keyPrefix: key.displayPrefix,
      expiresAt: opts.expiresAt ?? null,
      mode: 'live',
    },
    operatorOrigin('test'),
  );
  return { tenantId: tenant.tenantId, partnerId: partner.partnerId, keyId: stored.keyId, apiKey: key.apiKey };
}

/** A test key (`hs_test_…`) for the account's credential: it sees the account's sandbox. */
export async function testKeyFor(service: RunningService, account: TestAccount): Promise<TestAccount> {
  const key = generateApiKey('test');
  const stored = await service.store.system.accounts.insertKey(
    {
      partnerId: account.partnerId,
      keyHash: key.hash,
      keyPrefix: key.displayPrefix,
      expiresAt: null,
      mode: 'test',
    },
    operatorOrigin('test'),
  );
  return { ...account, keyId: stored.keyId, apiKey: key.apiKey };
}

// biome-ignore lint/suspicious/noExplicitAny: tests mutate arbitrary paths of the example body
export type MutableBody = Record<string, any>;

export function bodyFor(account: TestAccount, mutate?: (body: MutableBody) => void): MutableBody {
  const body = exampleBody();
  body.partnerId = account.partnerId;
  mutate?.(body);
  return body;
}

let counter = 0;
export function uniqueKey(prefix = 'idem'): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now()}-${counter}`;
}

export interface PostOptions {
  apiKey?: string;
  idempotencyKey?: string | null;
  correlationId?: string | null;
  headers?: Record<string, string>;
  /** Sent as it is instead of the JSON of `body` (bytes a JSON serialiser would never write). */
  rawBody?: string | Buffer;
}

export async function postSubmission(
  service: RunningService,
  body: unknown,
  opts: PostOptions = {},
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...opts.headers };
  if (opts.apiKey !== undefined) headers['x-api-key'] = opts.apiKey;
  if (opts.idempotencyKey !== null) headers['idempotency-key'] = opts.idempotencyKey ?? uniqueKey();
  if (opts.correlationId !== null) headers['x-correlation-id'] = opts.correlationId ?? 'corr-test';
  const res = await fetch(`${service.url}/v1/submissions`, {
    method: 'POST',
    headers,
    body:
      opts.rawBody === undefined
        ? JSON.stringify(body)
        : typeof opts.rawBody === 'string'
          ? opts.rawBody
          : new Uint8Array(opts.rawBody),
  });
  const text = await res.text();
  return {
    status: res.status,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    headers: res.headers,
  };
}

export async function getJson(
  service: RunningService,
  urlPath: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${service.url}${urlPath}`, { headers });
  const text = await res.text();
  return {
    status: res.status,
    json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    headers: res.headers,
  };
}

type ErrorBody = { error: { code: string; message: string; requestId: string; details?: unknown } };

export function errorOf(json: Record<string, unknown>): ErrorBody['error'] {
  return (json as unknown as ErrorBody).error;
}

/**
 * One service (rate limit off) and one account for a whole test file: started before its
 * first test, stopped after its last. Read `service` and `account` inside tests and hooks.
 */
export function serviceWithAccount(env: Record<string, string> = {}): {
  readonly service: TestService;
  readonly account: TestAccount;
} {
  let service: TestService | undefined;
  let account: TestAccount | undefined;
  beforeAll(async () => {
    service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0', ...env });
    account = await createAccount(service);
  });
  afterAll(async () => {
    await service?.stop();
  });
  return {
    get service() {
      if (!service) throw new Error('the service starts in beforeAll');
      return service;
    },
    get account() {
      if (!account) throw new Error('the account is created in beforeAll');
      return account;
    },
  };
}

/**
 * One service (rate limit off) delivering callbacks to a real loopback receiver, for a whole test
 * file: both started before its first test and stopped after its last.
 */
export function serviceWithReceiver(env: Record<string, string> = {}): {
  readonly service: TestService;
  readonly receiver: TestReceiver;
  readonly receiverUrl: string;
} {
  let service: TestService | undefined;
  const receiver = new TestReceiver();
  let receiverUrl = '';
  beforeAll(async () => {
    receiverUrl = await receiver.start();
    service = await startTestService({
      RATE_LIMIT_PER_MINUTE: '0',
      WEBHOOK_ALLOW_INSECURE: 'true',
      WEBHOOK_RETRY_SCHEDULE: '0s',
      ...env,
    });
  });
  afterAll(async () => {
    await service?.stop();
    await receiver.stop();
  });
  return {
    get service() {
      if (!service) throw new Error('the service starts in beforeAll');
      return service;
    },
    receiver,
    get receiverUrl() {
      return receiverUrl;
    },
  };
}
