import { spawn } from 'node:child_process';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-keys.js';
import { systemClock } from '../../src/clock.js';
import type { ModelResult } from '../../src/domain/model/types.js';
import { storeOnce } from '../../src/ingest/idempotency.js';
import { createLogger } from '../../src/logger.js';
import { artifactIdFor } from '../../src/store/ids.js';
import { Store, type StoreConfig } from '../../src/store/index.js';
import { migrateTo, migrateToLatest, pendingMigrations } from '../../src/store/migrate.js';
import { MIGRATIONS } from '../../src/store/migrations/index.js';
import { isPacked, type StoredJson, unpackJson } from '../../src/store/packing/packed-json.js';
import { operatorOrigin } from '../../src/store/repositories/accounts.js';
import { AUDIT_COLUMNS } from '../../src/store/rows.js';
import { WebhookAdmin } from '../../src/webhooks/admin.js';
import { SecretBox } from '../../src/webhooks/index.js';
import { recordResultReady } from '../../src/webhooks/outbox.js';
import { activeSecret } from '../../src/webhooks/secrets.js';
import { createTestDatabase, testStoreKind } from '../helpers/database.js';
import { tempDataDir } from '../helpers/dirs.js';
import { ingestCommand } from '../helpers/store.js';

/**
 * Migrations on a database that is not empty, and on one that two processes migrate at once,
 * on both stores. Kysely's migrator locks on PostgreSQL (an advisory lock) but not on SQLite,
 * where src/store/migrate.ts runs the whole migration in one IMMEDIATE transaction.
 */

const ALL = Object.keys(MIGRATIONS);
const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** A fresh, unmigrated database of the store kind under test; dropped after the test. */
async function freshConfig(): Promise<StoreConfig> {
  const database = testStoreKind() === 'postgres' ? await createTestDatabase() : undefined;
  if (database) cleanup.push(() => database.drop());
  return { dataDir: tempDataDir(), databaseUrl: database?.url, slaSeconds: 300, jobMaxAttempts: 5 };
}

function open(config: StoreConfig): Store {
  const store = Store.open(config, { clock: systemClock, logger: createLogger('silent') });
  cleanup.push(() => store.close());
  return store;
}

/** The migrations the database has recorded, one row each. */
async function recorded(store: Store): Promise<string[]> {
  const rows = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
    store.driver.db,
  );
  return rows.rows.map((r) => r.name);
}

const BIN = path.resolve(import.meta.dirname, '../../bin/healthspan-admin');

/** `healthspan-admin migrate` as a child process, not waited for until the promise is. */
function migrateProcess(
  config: StoreConfig,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, ['migrate'], {
      env: {
        ...process.env,
        LOG_LEVEL: 'silent',
        DATA_DIR: config.dataDir,
        DATABASE_URL: config.databaseUrl ?? '',
        MIGRATE_ON_START: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('migrations', () => {
  it('applies each migration onto rows written at the version before, and the rows read back at the latest', async () => {
    const store = open(await freshConfig());
    const { driver } = store;
    const { db } = driver;
    const at = async (name: string) => {
      await migrateTo(driver, name);
      expect(await recorded(store)).toEqual(ALL.slice(0, ALL.indexOf(name) + 1));
    };
    const box = new SecretBox('migration-test-webhook-secrets-key-0123456789');
    const now = () => new Date();
    const documentsTakeBytes = async (table: 'submissions' | 'results', columns: readonly string[]) => {
      if (driver.name !== 'postgres') return;
      for (const column of columns) {
        await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type bytea using convert_to(${sql.ref(column)}::text, 'UTF8')`.execute(
          db,
        );
      }
    };
    const asTextOfTheTime = async (table: 'submissions' | 'results', columns: readonly string[]) => {
      const { rows } = await sql<Record<string, StoredJson>>`select * from ${sql.table(table)}`.execute(db);
      for (const column of columns) {
        if (driver.name === 'postgres') {
          await sql`alter table ${sql.table(table)} alter column ${sql.ref(column)} type json using '{}'::json`.execute(
            db,
          );
        }
        for (const row of rows) {
          if (!isPacked(row[column]!)) continue;
          await sql`update ${sql.table(table)} set ${sql.ref(column)} = ${unpackJson(row[column]!)} where id = ${row.id}`.execute(
            db,
          );
        }
      }
    };

    // Until 0009 there is no audit trail to write to: the rows of the older versions are written
    // without their audit events.
    const record = store.system.audit.record;
    store.system.audit.record = async () => {};
    // 0001: accounts, an API key, a submission with its idempotency record and first job, and a
    // job claimed by a worker (still running when the later migrations run).
    await at('0001_initial');
    // Until 0010 a job row has no trace context, but today's repositories write one (null, with
    // tracing off): the column stands in while the older versions' rows are written, and is gone
    // again before 0010 adds it for real.
    await sql`alter table jobs add column traceparent text`.execute(db);
    // Until 0011 there is no test mode: its columns stand in the same way.
    const uuid = sql.raw(driver.name === 'postgres' ? 'uuid' : 'text');
    const sandboxColumns = [
      sql`alter table tenants add column mode text not null default 'live'`,
      sql`alter table tenants add column live_tenant_id ${uuid}`,
      sql`alter table partners add column live_partner_id ${uuid}`,
    ];
    for (const statement of sandboxColumns) await statement.execute(db);
    // Until 0022 a submission has no record of the door's checks, but today's ingest writes one
    // (null here: these commands carry none): its columns stand in the same way.
    for (const column of ['door_checks', 'door_outcome']) {
      await sql`alter table submissions add column ${sql.ref(column)} text`.execute(db);
    }
    // Until 0009 there is no audit trail, but the ingest statements write the submission's event
    // with its rows: a table of the same column types stands in (PostgreSQL keeps a prepared
    // statement's parameter types), and is gone again before 0009 creates the real one.
    const typed = {
      id: 'uuid',
      tenant_id: 'uuid',
      actor_id: 'uuid',
      actor_key_id: 'uuid',
      occurred_at: 'timestamptz',
    } as const;
    // Until 0024 the documents were JSON text (PostgreSQL: `json`), but today's repositories
    // pack them: they take bytes while the old versions' rows are written, and the rows are turned
    // back into the text of their time before the migrations run (`asTextOfTheTime`).
    await documentsTakeBytes('submissions', ['original_body', 'normalised_body']);
    let standIn = db.schema.createTable('audit_events');
    for (const column of AUDIT_COLUMNS) {
      const type =
        driver.name === 'postgres' && column in typed ? typed[column as keyof typeof typed] : 'text';
      standIn = standIn.addColumn(column, type);
    }
    await standIn.execute();
    const tenant = await store.system.accounts.createTenant('Älteste Klinik');
    const partner = await store.system.accounts.createPartner(tenant.tenantId, 'Partner 𝔘');
    const account = { tenantId: tenant.tenantId, partnerId: partner.partnerId };
    const key = generateApiKey();
    const stored = await store.system.accounts.insertKey(
      {
        partnerId: partner.partnerId,
        keyHash: key.hash,
        keyPrefix: key.displayPrefix,
        expiresAt: null,
        mode: 'live',
      },
      operatorOrigin('test'),
    );
    const body = JSON.stringify({ note: 'ünïcödé ✓ 漢字', n: 1 });
    const first = await store.system.ingest.ingest(
      ingestCommand(account, {
        idempotencyKeyHash: 'key-at-0001',
        requestHash: 'hash-at-0001',
        partnerSubmissionId: 'ps-0001',
        originalBody: body,
        normalisedBody: body,
      }),
    );
    if (first.kind !== 'created') throw new Error('not created');
    const [running] = await store.system.batcher.submit((trx) =>
      store.system.jobs.claim(trx, 'worker-before-0006', ['pipeline.ingest_validate'], 1, 600_000, now()),
    );
    expect(running?.submissionId).toBe(first.submissionId);

    // 0002: a result with its artifacts, one of them stored and available.
    await at('0002_results');
    await documentsTakeBytes('results', ['bundle']);
    const bundle = { outcomes: [{ id: 'wellbeing.general', risk: 0.12 }] } as unknown as ModelResult;
    const pdf = Buffer.from('%PDF-1.7 bytes written at 0002');
    const { resultId } = await store.system.batcher.submit(async (trx) => {
      const created = await store.system.results.createOnce(
        trx,
        {
          tenantId: tenant.tenantId,
          submissionId: first.submissionId,
          bundle,
          artifactTypes: ['json', 'pdf'],
        },
        now(),
      );
      const rendered = [
        {
          artifactId: artifactIdFor(created.resultId, 'pdf'),
          body: pdf,
          byteSize: pdf.length,
          contentType: 'application/pdf',
          fileName: 'wellbeing-report-ps-0001.pdf',
          sha256: 'a'.repeat(64),
        },
      ];
      await store.system.results.storeAvailable(trx, created.resultId, rendered, now(), true);
      return created;
    });

    // 0003 (an index on running jobs) under a second submission.
    await at('0003_running_jobs_index');
    const second = await store.system.ingest.ingest(
      ingestCommand(account, { idempotencyKeyHash: 'key-at-0003', partnerSubmissionId: 'ps-0003' }),
    );
    if (second.kind !== 'created') throw new Error('not created');

    // 0004: a callback, its sealed secret, the result's event and its delivery job.
    await at('0004_webhooks');
    // Until 0012 an endpoint has no status and an event no failure reason, but today's outbox
    // reads and writes them (and the endpoint service its disabling and attempts' kind): they
    // stand in the same way.
    const ts = sql.raw(driver.name === 'postgres' ? 'timestamptz' : 'text');
    const selfServiceColumns = [
      sql`alter table webhook_endpoints add column status text not null default 'enabled'`,
      sql`alter table webhook_endpoints add column disabled_at ${ts}`,
      sql`alter table webhook_endpoints add column disabled_reason text`,
      sql`alter table webhook_endpoints add column failing_since ${ts}`,
      sql`alter table webhook_events add column failure_reason text`,
      sql`alter table webhook_attempts add column kind text not null default 'delivery'`,
    ];
    for (const statement of selfServiceColumns) await statement.execute(db);
    // Until 0020 an event has no listen position; on SQLite today's outbox takes one from the
    // counter (on PostgreSQL it is the column's default, not written), so both stand in too.
    const listenPosition =
      driver.name === 'sqlite'
        ? [
            sql`alter table webhook_events add column listen_position integer`,
            sql`create table listen_counter (id integer primary key, position integer not null)`,
            sql`insert into listen_counter (id, position) values (1, 0)`,
          ]
        : [];
    for (const statement of listenPosition) await statement.execute(db);
    const admin = new WebhookAdmin(store.system, box, {
      allowInsecure: true,
      scheduleMs: [0, 1000],
      clock: systemClock,
      tenants: store,
    });
    const { signingSecret } = await admin.set(partner.partnerId, 'http://127.0.0.1:9/hook', {
      apiKey: 'rk_at_0004',
    });
    const eventId = await store.system.batcher.submit((trx) =>
      recordResultReady(
        store.system,
        trx,
        {
          submissionId: first.submissionId,
          now: now(),
          ids: { correlationId: 'c', requestId: null },
          policy: { scheduleMs: [0, 1000] },
        },
        (job) => store.system.jobs.enqueue(trx, job, now()),
      ),
    );
    expect(eventId).toEqual(expect.any(String));

    // 0005 (PostgreSQL: notifications on new jobs) and 0006 (the attempts log): a delivery
    // claimed once the log exists.
    await at('0005_job_notifications');
    await at('0006_job_attempts');
    const [delivery] = await store.system.batcher.submit((trx) =>
      store.system.jobs.claim(trx, 'worker-after-0006', ['webhook.deliver'], 1, 600_000, now()),
    );
    expect(delivery).toBeDefined();

    const counts = async () => {
      const out: Record<string, number> = {};
      for (const table of [
        'tenants',
        'partners',
        'api_keys',
        'submissions',
        'jobs',
        'idempotency_keys',
        'results',
        'artifacts',
        'artifact_contents',
        'webhook_endpoints',
        'webhook_secrets',
        'webhook_events',
        'job_attempts',
      ]) {
        const { rows } = await sql<{
          n: number | string;
        }>`select count(*) as n from ${sql.table(table)}`.execute(db);
        out[table] = Number(rows[0]!.n);
      }
      return out;
    };
    const before = await counts();

    // The latest version (0007: LZ4 for documents on PostgreSQL; 0009: the lifecycle tables):
    // nothing pending, nothing lost.
    await sql`alter table jobs drop column traceparent`.execute(db);
    await db.schema.dropTable('audit_events').execute();
    if (driver.name === 'sqlite') {
      await db.schema.dropTable('listen_counter').execute();
      await sql`alter table webhook_events drop column listen_position`.execute(db);
    }
    for (const [table, column] of [
      ['tenants', 'mode'],
      ['tenants', 'live_tenant_id'],
      ['partners', 'live_partner_id'],
      ['webhook_endpoints', 'status'],
      ['webhook_endpoints', 'disabled_at'],
      ['webhook_endpoints', 'disabled_reason'],
      ['webhook_endpoints', 'failing_since'],
      ['webhook_events', 'failure_reason'],
      ['webhook_attempts', 'kind'],
      ['submissions', 'door_checks'],
      ['submissions', 'door_outcome'],
    ] as const) {
      await sql`alter table ${sql.table(table)} drop column ${sql.ref(column)}`.execute(db);
    }
    await asTextOfTheTime('submissions', ['original_body', 'normalised_body']);
    await asTextOfTheTime('results', ['bundle']);
    const { applied } = await migrateToLatest(driver);
    expect(applied).toEqual(ALL.slice(ALL.indexOf('0007_lz4_compression')));
    expect(await pendingMigrations(driver)).toEqual([]);
    expect(await recorded(store)).toEqual(ALL);
    expect(await store.isReady()).toEqual({ ok: true });
    expect(await counts()).toEqual(before);
    store.system.audit.record = record;

    // Everything reads back through the repositories.
    expect(await store.system.accounts.findKeyByHash(key.hash)).toMatchObject({
      keyId: stored.keyId,
      tenantId: tenant.tenantId,
      revokedAt: null,
      tenantActive: true,
    });
    expect(await store.system.accounts.getTenant(tenant.tenantId)).toMatchObject({ name: 'Älteste Klinik' });
    const submissions = store.forTenant(tenant.tenantId).submissions;
    const detail = await submissions.get(first.submissionId, operatorOrigin('test'));
    expect(detail).toMatchObject({
      partnerSubmissionId: 'ps-0001',
      resultId,
      jobs: [expect.objectContaining({ type: 'pipeline.ingest_validate', status: 'running', attempts: 1 })],
    });
    expect((await submissions.get(second.submissionId, operatorOrigin('test')))?.partnerSubmissionId).toBe(
      'ps-0003',
    );
    const stillStored = await db
      .selectFrom('submissions')
      .select('original_body')
      .where('id', '=', first.submissionId)
      .executeTakeFirstOrThrow();
    // Stored as text before 0024, read back as it was; new rows are packed.
    expect(isPacked(stillStored.original_body)).toBe(false);
    expect(unpackJson(stillStored.original_body)).toBe(body);
    // Accepted before the door recorded its checks: the check step runs them in full.
    expect(await store.system.pipeline.load(db, first.submissionId)).toMatchObject({
      normalisedBody: body,
      doorCheck: null,
    });
    expect(await store.system.pipeline.originalBody(db, first.submissionId)).toBe(body);
    const result = await store.system.results.forSubmission(db, first.submissionId);
    expect(JSON.parse(result!.bundleJson)).toEqual(bundle);
    expect(result!.artifacts.map((a) => [a.type, a.availability])).toEqual([
      ['json', 'pending'],
      ['pdf', 'available'],
    ]);
    expect(await store.system.artifacts.get(artifactIdFor(resultId, 'pdf'))).toEqual(pdf);
    const endpoint = await store.system.webhooks.endpoint(db, partner.partnerId);
    expect(endpoint?.url).toBe('http://127.0.0.1:9/hook');
    expect(box.open(endpoint!.apiKeySealed!, `webhook-api-key:${partner.partnerId}`)).toBe('rk_at_0004');
    expect(
      activeSecret(box, partner.partnerId, await store.system.webhooks.secrets(db, partner.partnerId), now()),
    ).toBe(signingSecret);
    const event = await store.system.webhooks.event(db, eventId!);
    expect(event).toMatchObject({ resultId, status: 'pending' });
    expect(JSON.parse(event!.body)).toMatchObject({ resultId, partnerSubmissionId: 'ps-0001' });

    // The state machine carries on across the versions: the job claimed at 0001 completes (the
    // log began after it started, so it has no attempt there), the delivery claimed at 0006
    // completes with its attempt logged, and the key stored at 0001 still replays its request.
    expect(await store.system.batcher.submit((trx) => store.system.jobs.complete(trx, running!, now()))).toBe(
      true,
    );
    expect(
      await store.system.batcher.submit((trx) => store.system.jobs.complete(trx, delivery!, now())),
    ).toBe(true);
    expect(await store.system.jobs.attempts(running!.id)).toEqual([]);
    expect(
      (await store.system.jobs.attempts(delivery!.id)).map((a) => [a.attempt, a.worker_id, a.outcome]),
    ).toEqual([[1, 'worker-after-0006', 'completed']]);
    const replay = await storeOnce(
      store.forTenant(account.tenantId).submissions,
      ingestCommand(account, { idempotencyKeyHash: 'key-at-0001', requestHash: 'hash-at-0001' }),
      JSON.parse(body),
    );
    expect(replay).toMatchObject({ kind: 'replayed', submissionId: first.submissionId });
  });

  it('lets two stores migrate one fresh database at once: each migration applied once, by one of them', async () => {
    const config = await freshConfig();
    // Two stores with their own connections, as two processes have (on SQLite, two connections
    // to one file). Both start in the same turn of the event loop.
    const a = open(config);
    const b = open(config);
    const [ra, rb] = await Promise.all([a.migrate(), b.migrate()]);
    expect([...ra.applied, ...rb.applied].sort()).toEqual(ALL);
    // One did all the work, the other waited for it and found nothing left.
    expect([ra.applied.length, rb.applied.length].sort()).toEqual([0, ALL.length]);
    expect(await recorded(a)).toEqual(ALL);
    expect(await a.isReady()).toEqual({ ok: true });
    expect(await b.isReady()).toEqual({ ok: true });
    // The schema works from both.
    const tenant = await b.system.accounts.createTenant('T');
    const partner = await a.system.accounts.createPartner(tenant.tenantId, 'P');
    const created = await a.system.ingest.ingest(
      ingestCommand({ tenantId: tenant.tenantId, partnerId: partner.partnerId }),
    );
    expect(created.kind).toBe('created');
  });

  it('lets two `healthspan-admin migrate` processes migrate one fresh database at once', async () => {
    const config = await freshConfig();
    const runs = await Promise.all([migrateProcess(config), migrateProcess(config)]);
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const applied = runs.map((r) => (JSON.parse(r.stdout) as { applied: string[] }).applied);
    expect(applied.flat().sort()).toEqual(ALL);
    expect(new Set(applied.flat()).size).toBe(ALL.length);
    const store = open(config);
    expect(await recorded(store)).toEqual(ALL);
    expect(await store.isReady()).toEqual({ ok: true });
  });
});
