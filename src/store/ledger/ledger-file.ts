import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { deriveKey } from '../../derive-key.js';
import { appendWhole, syncDirectory } from '../durable.js';
import {
  foreignLedger,
  LedgerError,
  LedgerUnavailableError,
  REFUSED,
  unreadable,
  unwritable,
} from './errors.js';

/** What an entry records: an erasure requested or completed, or an operator's override. */
export type LedgerKind = 'requested' | 'completed' | 'override';

/**
 * One line of the ledger. No identifier in the clear but the service's own ids: the subject is a
 * keyed hash (HMAC) of the account and the partner's reference, which only a holder of the key
 * can compute, and only for a reference it already has.
 */
export interface LedgerEntry {
  seq: number;
  kind: LedgerKind;
  at: string;
  tenantId: string | null;
  erasureId: string | null;
  subject: string | null;
  /** The database the entry was written for (its `storeId`); absent in entries written before 0.1.0's fault work. */
  store?: string;
  /** The previous entry's `mac` ('' for the first): the chain a cut or an edit breaks. */
  prev: string;
  /** HMAC of this entry's fields and `prev`, with the ledger's chain key. */
  mac: string;
}

export type LedgerFields = Pick<LedgerEntry, 'kind' | 'at' | 'tenantId' | 'erasureId' | 'subject'>;

/** Where a database stands in its ledger: the last entry it applied and that entry's MAC. */
export interface LedgerPosition {
  seq: number;
  head: string;
}

/** The whole ledger as read and checked; `torn`: it ends in a partial line (a crash mid-append). */
export interface LedgerContents {
  exists: boolean;
  entries: LedgerEntry[];
  torn: boolean;
  /** The first other database an entry names: the ledger is not this database's. */
  foreignStore: string | undefined;
}

const TAIL_BYTES = 64 * 1024;

/** The ledger's two keys, derived from the master key (`derive-key.ts`) once, shared by every ledger. */
export class LedgerKeys {
  private derived: { subject: Buffer; chain: Buffer } | undefined;

  /** The master key (WEBHOOK_SECRETS_KEY or its generated file): never in the database. */
  constructor(private readonly masterKey: () => Buffer) {}

  private keys(): { subject: Buffer; chain: Buffer } {
    if (!this.derived) {
      const master = this.masterKey();
      this.derived = {
        subject: deriveKey(master, 'ledgerSubjects'),
        chain: deriveKey(master, 'ledgerChain'),
      };
    }
    return this.derived;
  }

  /** The keyed hash an entry records for a subject of an account. */
  subjectHash(tenantId: string, partnerSubjectId: string): string {
    return createHmac('sha256', this.keys().subject).update(`${tenantId}\n${partnerSubjectId}`).digest('hex');
  }

  /** An entry's MAC: its fields, `store` once entries carry it, and `prev`. */
  macOf(entry: Omit<LedgerEntry, 'mac'>): string {
    const fields: unknown[] = [
      entry.seq,
      entry.kind,
      entry.at,
      entry.tenantId,
      entry.erasureId,
      entry.subject,
      entry.prev,
    ];
    if (entry.store !== undefined) fields.push(entry.store);
    return createHmac('sha256', this.keys().chain).update(JSON.stringify(fields)).digest('hex');
  }
}

/**
 * One database's erasure ledger (README.md beside this file): an append-only file of JSON lines
 * kept apart from the database, so that no backup of the database holds it and a restore cannot
 * take it back in time. Each entry names the database (`store`) and is chained to the previous
 * one by a keyed MAC; an append is whole and on disk (every byte written, fsync, and the
 * directory's when the file is new) before it returns, or it leaves nothing and throws
 * `LedgerUnavailableError`. Appends are serialised by the database: the caller holds the
 * database's ledger row (`LedgerStateRepository`).
 */
export class ErasureLedger {
  constructor(
    readonly file: string,
    /** The database this ledger belongs to (`erasure_ledger_state.store_id`). */
    readonly storeId: string,
    private readonly keys: LedgerKeys,
  ) {}

  /** Every entry, each checked against its MAC and its predecessor; `LedgerError` at the first that fails. */
  async read(): Promise<LedgerContents> {
    let text: string;
    try {
      text = await fsp.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { exists: false, entries: [], torn: false, foreignStore: undefined };
      throw unreadable(this.file, error);
    }
    const { lines, torn } = splitLines(text);
    const parsed = lines.map(tryParse);
    // Another database's ledger is said to be so before its chain is checked: written on another
    // host, its MACs would fail with this one's key, and "damaged" would send the operator the
    // wrong way.
    const foreignStore = parsed
      .map((entry) => entry?.store)
      .find((store) => typeof store === 'string' && store !== this.storeId);
    if (foreignStore !== undefined) return { exists: true, entries: [], torn, foreignStore };
    const entries: LedgerEntry[] = [];
    for (const [i, entry] of parsed.entries()) entries.push(this.check(entry, i + 1, entries.at(-1)));
    return { exists: true, entries, torn, foreignStore: undefined };
  }

  /**
   * A parsed line as an entry (undefined: it was not JSON), or `LedgerError` naming it when it is
   * not the one the chain expects.
   */
  private check(
    parsed: Partial<LedgerEntry> | undefined,
    lineNo: number,
    previous: LedgerEntry | undefined,
  ): LedgerEntry {
    const damaged = (why: string) =>
      new LedgerError(`the erasure ledger ${this.file} is damaged at line ${lineNo} (${why})`);
    if (parsed === undefined || typeof parsed.mac !== 'string') throw damaged('not an entry');
    const entry = parsed as LedgerEntry;
    if (entry.seq !== (previous?.seq ?? 0) + 1) throw damaged('an entry is missing before it');
    if (entry.prev !== (previous?.mac ?? '')) throw damaged('it does not follow the entry before it');
    const expected = Buffer.from(this.keys.macOf(entry), 'hex');
    const given = Buffer.from(entry.mac, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw damaged('it was changed, or written with another key');
    }
    return entry;
  }

  /**
   * Appends one entry after checking that the file holds the database's last applied entry
   * (`position`): a ledger that lost it was cut, or belongs to another database. Resolves once
   * every byte of the line is on disk; otherwise the file is cut back to where it was and
   * `LedgerUnavailableError` says why. Only a database that applied no entry yet (`position` 0)
   * creates the file (and its folder): a ledger that went away is never started again here.
   */
  async append(fields: LedgerFields, position: LedgerPosition): Promise<LedgerEntry> {
    const [entry] = await this.appendAll([fields], position);
    if (!entry) throw new Error('an append wrote no entry');
    return entry;
  }

  /**
   * `append` for entries that belong together (an erasure requested and completed at once): one
   * write and one sync, whole or not at all.
   */
  async appendAll(all: LedgerFields[], position: LedgerPosition): Promise<LedgerEntry[]> {
    const dir = path.dirname(this.file);
    const fresh = position.seq === 0;
    const newDir = fresh && !fs.existsSync(dir);
    const newFile = fresh && !fs.existsSync(this.file);
    let handle: fsp.FileHandle;
    try {
      if (newDir) await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
      const { O_RDWR, O_APPEND, O_CREAT } = fs.constants;
      handle = await fsp.open(this.file, O_RDWR | O_APPEND | (fresh ? O_CREAT : 0), 0o600);
    } catch (error) {
      throw unwritable(this.file, error);
    }
    try {
      const { last, size } = await this.tailOrRefuse(handle, position);
      const entries: LedgerEntry[] = [];
      for (const fields of all) entries.push(this.entryAfter(entries.at(-1) ?? last, fields));
      const lines = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
      try {
        await appendWhole(handle, Buffer.from(lines, 'utf8'));
        await handle.sync();
        if (newFile) await syncDirectory(dir);
        if (newDir) await syncDirectory(path.dirname(dir));
      } catch (error) {
        await cutBack(handle, size);
        throw unwritable(this.file, error);
      }
      return entries;
    } finally {
      await handle.close();
    }
  }

  private entryAfter(last: LedgerEntry | undefined, fields: LedgerFields): LedgerEntry {
    const entry: LedgerEntry = {
      seq: (last?.seq ?? 0) + 1,
      kind: fields.kind,
      at: fields.at,
      tenantId: fields.tenantId,
      erasureId: fields.erasureId,
      subject: fields.subject,
      store: this.storeId,
      prev: last?.mac ?? '',
      mac: '',
    };
    entry.mac = this.keys.macOf(entry);
    return entry;
  }

  /**
   * Starts the ledger again with one entry (an operator's override of a lost or damaged ledger):
   * a file that is there is kept beside it, renamed, never deleted.
   */
  async restart(fields: LedgerFields): Promise<{ entry: LedgerEntry; keptAs: string | undefined }> {
    let keptAs: string | undefined;
    if (fs.existsSync(this.file)) {
      keptAs = `${this.file}.replaced-${fields.at.replace(/[:.]/g, '-')}`;
      await fsp.rename(this.file, keptAs);
    }
    return { entry: await this.append(fields, { seq: 0, head: '' }), keptAs };
  }

  /** `tail`, any failure of it turned into the refusal of this append. */
  private async tailOrRefuse(
    handle: fsp.FileHandle,
    position: LedgerPosition,
  ): Promise<{ last: LedgerEntry | undefined; size: number }> {
    try {
      return await this.tail(handle, position);
    } catch (error) {
      if (error instanceof LedgerError) throw new LedgerUnavailableError(`${error.message}; ${REFUSED}`);
      throw unwritable(this.file, error);
    }
  }

  /**
   * The last entry and the file's size, read from the file's end, after cutting a partial last
   * line (an append that never returned, so never acknowledged); checks that the database's
   * position is in the file and that the file is this database's.
   */
  private async tail(
    handle: fsp.FileHandle,
    position: LedgerPosition,
  ): Promise<{ last: LedgerEntry | undefined; size: number }> {
    let { size } = await handle.stat();
    if (size === 0) {
      if (position.seq > 0) throw this.notOurs(position);
      return { last: undefined, size };
    }
    let start = Math.max(0, size - TAIL_BYTES);
    for (;;) {
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      const text = buffer.toString('utf8');
      const end = text.lastIndexOf('\n');
      if (end < text.length - 1) {
        await handle.truncate(start + end + 1);
        size = start + end + 1;
      }
      const lines = text
        .slice(0, end + 1)
        .split('\n')
        .slice(start === 0 ? 0 : 1, -1);
      const entries = lines.map((line) => parseLine(line, this.file));
      const first = entries[0];
      if (start > 0 && (!first || first.seq > position.seq)) {
        start = 0;
        continue;
      }
      if (position.seq > 0) {
        const applied = entries.find((e) => e.seq === position.seq);
        if (!applied || applied.mac !== position.head) throw this.notOurs(position);
      }
      const last = entries.at(-1);
      if (last?.store !== undefined && last.store !== this.storeId) {
        throw new LedgerError(foreignLedger(this.file, last.store, this.storeId));
      }
      return { last, size };
    }
  }

  private notOurs(position: LedgerPosition): LedgerError {
    return new LedgerError(
      `the erasure ledger ${this.file} does not hold this database's last erasure entry (${position.seq}): it was cut, or it is another database's ledger; set ERASURE_LEDGER to this database's ledger (docs/backup.md)`,
    );
  }
}

/** Cuts a failed append's bytes off again, so no partial line of it stays; best effort. */
async function cutBack(handle: fsp.FileHandle, size: number): Promise<void> {
  try {
    await handle.truncate(size);
    await handle.sync();
  } catch {
    // A partial line that stays is cut by the next append and never read: it was never acknowledged.
  }
}

function tryParse(line: string): Partial<LedgerEntry> | undefined {
  try {
    const parsed = JSON.parse(line) as unknown;
    return typeof parsed === 'object' && parsed !== null ? (parsed as Partial<LedgerEntry>) : undefined;
  } catch {
    return undefined;
  }
}

function parseLine(line: string, file: string): LedgerEntry {
  try {
    return JSON.parse(line) as LedgerEntry;
  } catch {
    throw new LedgerError(`the erasure ledger ${file} is damaged near its end (a line is not an entry)`);
  }
}

function splitLines(text: string): { lines: string[]; torn: boolean } {
  if (text === '') return { lines: [], torn: false };
  const parts = text.split('\n');
  const torn = parts.at(-1) !== '';
  // A partial last line is an append that never returned: it was never acknowledged.
  parts.pop();
  return { lines: parts, torn };
}
