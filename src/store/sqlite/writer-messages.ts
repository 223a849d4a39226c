import type { IngestRows } from '../driver.js';
import type { UnitOutcome } from './ingest-batch.js';

/**
 * What the event loop asks the writer thread: a batch to write, a passive checkpoint, a
 * truncating one (after an erasure: no copy of a deleted row may stay in the log), or to close
 * its connection.
 */
export type WriterRequest =
  | { kind: 'ingest'; units: IngestRows[] }
  | { kind: 'checkpoint' }
  | { kind: 'truncate' }
  | { kind: 'close' };

/** One answer per request, in order: each unit's outcome, or why the whole request failed. */
export type WriterReply =
  | {
      ok: true;
      outcomes: UnitOutcome[];
      /** A truncating checkpoint could not finish: a reader or writer was still at it. */
      busy?: boolean;
    }
  | { ok: false; error: { message: string; code: string | undefined } };
