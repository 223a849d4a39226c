import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

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

/** The ledger is missing, damaged, or not the one this database was written with. */
export class LedgerError extends Error {}

/** The whole ledger as read and checked; `torn`: it ends in a partial line (a crash mid-append). */
export interface LedgerContents {
  exists: boolean;
  entries: LedgerEntry[];
  torn: boolean;
}

const TAIL_BYTES = 64 * 1024;

/** The ledger's default place: beside the embedded database, in a file of its own. */
export function defaultLedgerFile(dataDir: string): string {
  return path.join(dataDir, 'erasure-ledger.jsonl');
}

/**
 * The erasure ledger (docs/backup.md): an append-only file of JSON lines kept apart from the
 * database, so that no backup of the database holds it and a restore cannot take it back in
 * time. Each entry is chained to the previous one by a keyed MAC; each append is on disk
 * (fsync, and the directory's when the file is new) before it returns. Appends are serialised
 * by the database: the caller holds the database's ledger row (`LedgerStateRepository`).
 */
export class ErasureLedger {
  private derived: { subject: Buffer; chain: Buffer } | undefined;

  constructor(
    readonly file: string,
    /** The master key (WEBHOOK_SECRETS_KEY or its generated file): never in the database. */
    private readonly masterKey: () => Buffer,
  ) {}

  private keys(): { subject: Buffer; chain: Buffer } {
    if (!this.derived) {
      const master = this.masterKey();
      const derive = (info: string) =>
        Buffer.from(hkdfSync('sha256', master, 'healthspan erasure ledger', info, 32));
      this.derived = { subject: derive('subject'), chain: derive('chain') };
    }
    return this.derived;
  }

  /** The keyed hash an entry records for a subject of an account. */
  subjectHash(tenantId: string, partnerSubjectId: string): string {
    return createHmac('sha256', this.keys().subject).update(`${tenantId}\n${partnerSubjectId}`).digest('hex');
  }

  private macOf(entry: Omit<LedgerEntry, 'mac'>): string {
    const fields = [
      entry.seq,
      entry.kind,
      entry.at,
      entry.tenantId,
      entry.erasureId,
      entry.subject,
      entry.prev,
    ];
    return createHmac('sha256', this.keys().chain).update(JSON.stringify(fields)).digest('hex');
  }

  exists(): boolean {
    return fs.existsSync(this.file);
  }

  /** Every entry, each checked against its MAC and its predecessor; `LedgerError` at the first that fails. */
  async read(): Promise<LedgerContents> {
    let text: string;
    try {
      text = await fsp.readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        return { exists: false, entries: [], torn: false };
      throw error;
    }
    const { lines, torn } = splitLines(text);
    const entries: LedgerEntry[] = [];
    for (const [i, line] of lines.entries()) {
      const entry = this.check(line, i + 1, entries.at(-1));
      entries.push(entry);
    }
    return { exists: true, entries, torn };
  }

  /** A line as an entry, or `LedgerError` naming it when it is not the one the chain expects. */
  private check(line: string, lineNo: number, previous: LedgerEntry | undefined): LedgerEntry {
    const damaged = (why: string) =>
      new LedgerError(`the erasure ledger ${this.file} is damaged at line ${lineNo} (${why})`);
    let entry: LedgerEntry;
    try {
      entry = JSON.parse(line) as LedgerEntry;
    } catch {
      throw damaged('not an entry');
    }
    if (typeof entry !== 'object' || entry === null || typeof entry.mac !== 'string')
      throw damaged('not an entry');
    if (entry.seq !== (previous?.seq ?? 0) + 1) throw damaged('an entry is missing before it');
    if (entry.prev !== (previous?.mac ?? '')) throw damaged('it does not follow the entry before it');
    const expected = Buffer.from(this.macOf(entry), 'hex');
    const given = Buffer.from(entry.mac, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw damaged('it was changed, or written with another key');
    }
    return entry;
  }

  /**
   * Appends one entry after checking that the file holds the database's last applied entry
   * (`position`): a ledger that lost it was cut, or belongs to another database. Resolves once
   * the line is on disk.
   */
  async append(fields: LedgerFields, position: LedgerPosition): Promise<LedgerEntry> {
    const dir = path.dirname(this.file);
    const newDir = !fs.existsSync(dir);
    if (newDir) await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    const newFile = !fs.existsSync(this.file);
    const handle = await fsp.open(this.file, 'a+', 0o600);
    try {
      const last = await this.tail(handle, position);
      const body = { seq: (last?.seq ?? 0) + 1, ...fields, prev: last?.mac ?? '' };
      const entry: LedgerEntry = {
        seq: body.seq,
        kind: body.kind,
        at: body.at,
        tenantId: body.tenantId,
        erasureId: body.erasureId,
        subject: body.subject,
        prev: body.prev,
        mac: '',
      };
      entry.mac = this.macOf(entry);
      await handle.write(`${JSON.stringify(entry)}\n`);
      await handle.sync();
      if (newFile) await syncDirectory(dir);
      if (newDir) await syncDirectory(path.dirname(dir));
      return entry;
    } finally {
      await handle.close();
    }
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

  /**
   * The last entry, read from the file's end, after cutting a partial last line (an append that
   * never returned, so never acknowledged); checks that the database's position is in the file.
   */
  private async tail(handle: fsp.FileHandle, position: LedgerPosition): Promise<LedgerEntry | undefined> {
    const { size } = await handle.stat();
    if (size === 0) {
      if (position.seq > 0) throw this.notOurs(position);
      return undefined;
    }
    let start = Math.max(0, size - TAIL_BYTES);
    for (;;) {
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      const text = buffer.toString('utf8');
      const end = text.lastIndexOf('\n');
      if (end < text.length - 1) await handle.truncate(start + end + 1);
      const complete = text.slice(0, end + 1);
      const lines = complete.split('\n').slice(start === 0 ? 0 : 1, -1);
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
      return entries.at(-1);
    }
  }

  private notOurs(position: LedgerPosition): LedgerError {
    return new LedgerError(
      `the erasure ledger ${this.file} does not hold this database's last erasure entry (${position.seq}): it was cut, or it is another database's ledger; set ERASURE_LEDGER to this database's ledger (docs/backup.md)`,
    );
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

/** Makes a new directory entry durable (a file created, renamed or removed in `dir`). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await fsp.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
