import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Executor } from '../../src/store/prepared.js';
import { cliFor } from '../helpers/cli.js';
import { SkewedClock } from '../helpers/clock.js';
import { waitUntil } from '../helpers/pipeline.js';
import {
  bodyFor,
  createAccount,
  postSubmission,
  startTestService,
  type TestAccount,
  type TestService,
} from '../helpers/service.js';
import { SseStream } from '../helpers/sse.js';

/**
 * The test events stream cannot pass an event that commits late (issue 40). It once streamed by
 * timestamp, events 2 s old or older: an event whose transaction committed later than that after
 * its stamp fell behind the stream's place and was never sent. Here such an event is made, the
 * service's clock moved well past the old window, and the stream must send it once, in place.
 *
 * PostgreSQL: the event's transaction is held open on its own connection while a later event
 * commits; the later event waits for it (the stream reads below the oldest open transaction),
 * then both come, the held one first. SQLite writes one transaction at a time, so a transaction
 * cannot be held open beside the pipeline's; its equivalent is an event stamped long before it
 * commits, after events the stream already sent.
 */
let service: TestService;
let account: TestAccount;
const clock = new SkewedClock();

interface Delivery {
  eventId: string;
  body: string;
}

beforeAll(async () => {
  // Polls often and heartbeats every few polls: heartbeats seen are polls made.
  service = await startTestService({ RATE_LIMIT_PER_MINUTE: '0' }, 'all', {
    clock: clock.date,
    listenTiming: { pollMs: 10, heartbeatMs: 100 },
  });
  const live = await createAccount(service);
  const made = await cliFor(service, ['keys', 'create', '--partner', live.partnerId, '--mode', 'test']);
  if (made.code !== 0) throw new Error(`keys create --mode test failed: ${made.stderr}`);
  account = { ...live, keyId: made.json!.keyId as string, apiKey: made.json!.apiKey as string };
});
afterAll(() => service?.stop());

/** A submission's event; its tenant is the account's test data, not `account.tenantId`. */
interface Made {
  submissionId: string;
  eventId: string;
  resultId: string;
  tenantId: string;
  partnerId: string;
}

/** Submits with the test key and waits for its event; the event's id and its result's. */
async function eventOf(): Promise<Made> {
  const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
  expect(res.status, JSON.stringify(res.json)).toBe(202);
  const submissionId = res.json.submissionId as string;
  const row = await waitUntil(
    () =>
      service.store.driver.db
        .selectFrom('webhook_events as e')
        .innerJoin('results as r', 'r.id', 'e.result_id')
        .select(['e.id', 'e.result_id', 'e.tenant_id', 'e.partner_id'])
        .where('r.submission_id', '=', submissionId)
        .executeTakeFirst(),
    60_000,
    'the submission’s event',
  );
  return {
    submissionId,
    eventId: row.id,
    resultId: row.result_id,
    tenantId: row.tenant_id,
    partnerId: row.partner_id,
  };
}

/** A result with no event: a submission's, its event removed before any stream opened. */
async function freeResult(): Promise<Made> {
  const made = await eventOf();
  await service.store.driver.db.deleteFrom('webhook_events').where('id', '=', made.eventId).execute();
  return made;
}

/** The event the test makes itself, for `resultId`, through the service's own insert. */
function insertEvent(trx: Executor, free: Made, eventId: string, stampedAt: Date) {
  return service.store.system.webhooks.insertEvent(
    trx,
    {
      id: eventId,
      tenantId: free.tenantId,
      partnerId: free.partnerId,
      resultId: free.resultId,
      body: JSON.stringify({ type: 'result.ready', submissionId: free.submissionId }),
      status: 'failed',
      failureReason: 'no_endpoint',
    },
    stampedAt,
  );
}

function eventIdsOf(stream: SseStream): string[] {
  return stream.data<Delivery>('result.ready').map((d) => d.eventId);
}

/** Waits until the stream has polled a few times more (heartbeats come every ten polls). */
async function pollsPass(stream: SseStream): Promise<void> {
  const seen = stream.comments.length;
  await waitUntil(async () => stream.comments.length >= seen + 2, 30_000, 'the stream to poll on');
}

describe('GET /v1/test/events/stream, an event that commits late', () => {
  it('is sent once, in its place, however long after its stamp it commits', async () => {
    const held = await freeResult();
    const stream = await SseStream.open(`${service.url}/v1/test/events/stream`, {
      'x-api-key': account.apiKey,
    });
    await waitUntil(async () => stream.data('listen.started').length === 1);
    const first = await eventOf();
    await waitUntil(async () => eventIdsOf(stream).includes(first.eventId), 60_000, 'the first event');
    const heldId = randomUUID();

    if (service.store.driver.name === 'postgres') {
      let commit!: () => void;
      const gate = new Promise<void>((resolve) => {
        commit = resolve;
      });
      let inserted!: () => void;
      const insertedYet = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      const transaction = service.store.driver.db.transaction().execute(async (trx) => {
        await insertEvent(trx, held, heldId, clock.date());
        inserted();
        await gate;
      });
      await insertedYet;
      const later = await eventOf();
      // Past the old settle window: the held event's stamp and the later one's are 10 s old.
      clock.advance(10_000);
      await pollsPass(stream);
      expect(eventIdsOf(stream)).toEqual([first.eventId]);
      commit();
      await transaction;
      await waitUntil(async () => eventIdsOf(stream).length >= 3, 60_000, 'the held and later events');
      const last = await eventOf();
      await waitUntil(async () => eventIdsOf(stream).includes(last.eventId), 60_000, 'the last event');
      stream.close();
      expect(eventIdsOf(stream)).toEqual([first.eventId, heldId, later.eventId, last.eventId]);
    } else {
      // Stamped 10 s before the event the stream already sent, and committed now.
      const stampedAt = new Date(clock.date().getTime() - 10_000);
      await service.store.driver.db.transaction().execute((trx) => insertEvent(trx, held, heldId, stampedAt));
      const later = await eventOf();
      await waitUntil(async () => eventIdsOf(stream).length >= 3, 60_000, 'the late and later events');
      clock.advance(10_000);
      await pollsPass(stream);
      stream.close();
      expect(eventIdsOf(stream)).toEqual([first.eventId, heldId, later.eventId]);
    }
  });
});
