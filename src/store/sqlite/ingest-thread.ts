import { Worker } from 'node:worker_threads';
import type { IngestRows, IngestWrite } from '../driver.js';
import { describe } from './ingest-batch.js';
import { compileIngestStatements } from './ingest-statements.js';
import type { WriteTurns } from './write-turns.js';
import type { WriterReply, WriterRequest } from './writer-messages.js';

interface Pending {
  rows: IngestRows;
  resolve(write: IngestWrite): void;
  reject(error: Error): void;
}

function asError(error: { message: string; code: string | undefined }): Error {
  return Object.assign(new Error(error.message), error.code === undefined ? {} : { code: error.code });
}

/** Between two checkpoints asked for by commits that keep coming. */
const CHECKPOINT_SPACING_MS = 100;

/** A truncating checkpoint is tried this often, `CHECKPOINT_SPACING_MS` apart. */
const TRUNCATE_TRIES = 50;

type Answer = { resolve(reply: WriterReply): void; reject(error: Error): void };

/**
 * The event loop's side of the SQLite writer thread (`writer-thread.ts`). Submissions accepted
 * during one turn of the event loop cross to the thread together, as rows, in one message; the
 * outcomes come back in one message. A batch is sent every turn that has one, without waiting
 * for the previous to be answered, so the thread writes while the event loop reads the next
 * requests; batches that reach the thread while it writes share its next commit.
 *
 * The thread's batches hold the process's write turn (`WriteTurns`) from the first sent to the
 * last answered: when the event loop's connection asks for the turn, no new batch is sent until
 * those in flight are answered and the turn has been passed on. So the two connections never
 * meet at SQLite's lock.
 *
 * The thread starts with the first submission (the CLI never needs it) and again after it died;
 * batches that were in flight when it died fail, and nothing of them was acknowledged.
 */
export class IngestThread {
  private worker: Worker | undefined;
  private readonly queue: Pending[] = [];
  /** Answers awaited from the thread, in the order its replies come. */
  private readonly answers: Answer[] = [];
  private scheduled = false;
  /** Ingest batches sent and not yet answered: the write turn is held while there are any. */
  private batchesInFlight = 0;
  private checkpointing = false;
  private checkpointAgain = false;
  private holdsTurn = false;
  private acquiring = false;
  private closed = false;
  private idle: Array<() => void> = [];

  constructor(
    private readonly file: string,
    private readonly turns: WriteTurns,
    private readonly maxBatch = 256,
  ) {}

  ingest(rows: IngestRows): Promise<IngestWrite> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ rows, resolve, reject });
      this.schedule();
    });
  }

  /** The rest of this turn's submissions join the batch. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.send();
    });
  }

  private async send(): Promise<void> {
    if (this.queue.length === 0) return;
    if (!this.holdsTurn) {
      if (this.acquiring) return;
      this.acquiring = true;
      await this.turns.acquire();
      this.acquiring = false;
      this.holdsTurn = true;
    } else if (this.turns.contended) {
      // Let the waiting writer in once the batches in flight are answered (`answered`).
      return;
    }
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.batchesInFlight += 1;
      this.request({ kind: 'ingest', units: batch.map((p) => p.rows) }).then(
        (reply) => this.settle(batch, reply),
        (error: unknown) => this.settle(batch, { ok: false, error: describe(error) }),
      );
    }
  }

  private settle(batch: Pending[], reply: WriterReply): void {
    for (const [i, p] of batch.entries()) {
      const outcome = reply.ok ? reply.outcomes[i] : undefined;
      if (outcome?.ok) p.resolve(outcome.value);
      else p.reject(asError(outcome ? outcome.error : reply.ok ? describe('no outcome') : reply.error));
    }
    this.batchesInFlight -= 1;
    if (this.batchesInFlight > 0 || !this.holdsTurn) return;
    // Nothing in flight: the turn goes to whoever waits, and comes back for what queued meanwhile.
    this.holdsTurn = false;
    this.turns.release();
    if (this.queue.length > 0) this.schedule();
    this.wakeIdle();
  }

  /**
   * Asks the thread to copy what the log holds into the database file (a passive checkpoint:
   * it waits for no reader or writer), so that work, and the two fsyncs it takes, stay off the
   * event loop. One at a time: asked again meanwhile, it runs once more when this one ends.
   */
  checkpoint(): void {
    if (this.closed) return;
    if (this.checkpointing) {
      this.checkpointAgain = true;
      return;
    }
    this.checkpointing = true;
    const done = () => {
      this.checkpointing = false;
      if (this.checkpointAgain) {
        this.checkpointAgain = false;
        // Spaced: a checkpoint per commit would copy the log a page at a time.
        setTimeout(() => this.checkpoint(), CHECKPOINT_SPACING_MS).unref();
      } else this.wakeIdle();
    };
    // A failed pass leaves the frames in the log for the next one (or SQLite's own).
    this.request({ kind: 'checkpoint' }).then(done, done);
  }

  /**
   * Copies the whole log into the database file and truncates it, so no older copy of a page
   * (an erased row's) survives there. Asked again while a reader or writer keeps it from
   * finishing; fails after `TRUNCATE_TRIES` tries.
   */
  async truncateLog(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const reply = await this.request({ kind: 'truncate' });
      if (!reply.ok) throw asError(reply.error);
      if (reply.busy !== true) return;
      if (attempt >= TRUNCATE_TRIES)
        throw new Error('the SQLite log could not be truncated: it stayed in use');
      await new Promise((resolve) => setTimeout(resolve, CHECKPOINT_SPACING_MS));
    }
  }

  private wakeIdle(): void {
    for (const resolve of this.idle.splice(0)) resolve();
  }

  private request(request: WriterRequest): Promise<WriterReply> {
    const worker = this.worker ?? this.start();
    return new Promise<WriterReply>((resolve, reject) => {
      this.answers.push({ resolve, reject });
      // Kept alive only while it has work: an idle thread never holds the process open.
      if (this.answers.length === 1) worker.ref();
      worker.postMessage(request);
    });
  }

  private start(): Worker {
    const worker = new Worker(threadFile(), {
      workerData: { file: this.file, statements: compileIngestStatements() },
      // It allocates little beyond the rows it is sent: a small young generation keeps its
      // memory small (V8 sizes it for a busy main thread by default).
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    worker.unref();
    worker.on('message', (reply: WriterReply) => {
      if (worker !== this.worker) return;
      const answer = this.answers.shift();
      if (this.answers.length === 0) worker.unref();
      answer?.resolve(reply);
    });
    worker.on('error', (error) => this.lost(worker, error));
    worker.on('exit', (code) => this.lost(worker, new Error(`the SQLite writer thread exited (${code})`)));
    this.worker = worker;
    return worker;
  }

  private lost(worker: Worker, error: Error): void {
    if (worker !== this.worker) return;
    this.worker = undefined;
    for (const answer of this.answers.splice(0)) answer.reject(error);
  }

  /** Writes what is queued, then closes the thread's connection and ends the thread. */
  async close(): Promise<void> {
    this.closed = true;
    while (
      this.queue.length > 0 ||
      this.answers.length > 0 ||
      this.acquiring ||
      this.scheduled ||
      this.checkpointing
    ) {
      await new Promise<void>((resolve) => {
        this.idle.push(resolve);
        setTimeout(resolve, 10);
      });
    }
    const worker = this.worker;
    if (!worker) return;
    await this.request({ kind: 'close' });
    this.worker = undefined;
    await worker.terminate();
  }
}

/**
 * The thread entry beside this module (a worker thread runs JavaScript: the build's `.js`; from
 * sources, tests run the `.ts` through their loader, test/loader/).
 */
function threadFile(): URL {
  return new URL('./writer-thread.js', import.meta.url);
}
