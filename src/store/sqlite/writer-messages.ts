import type { IngestRows } from '../driver.js';
import type { UnitOutcome } from './ingest-batch.js';

/** What the event loop asks the writer thread: a batch to write, or to close its connection. */
export type WriterRequest = { kind: 'ingest'; units: IngestRows[] } | { kind: 'close' };

/** One answer per request, in order: each unit's outcome, or why the whole request failed. */
export type WriterReply =
  | { ok: true; outcomes: UnitOutcome[] }
  | { ok: false; error: { message: string; code: string | undefined } };
