import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import SqliteDatabase from 'better-sqlite3';
import type { IngestRows } from '../driver.js';
import {
  configureWriterConnection,
  describe,
  IngestBatchWriter,
  type IngestStatementTexts,
  ingestStatements,
} from './ingest-batch.js';
import type { WriterReply, WriterRequest } from './writer-messages.js';

/**
 * The SQLite writer thread: its own connection to the store's file (`configureWriterConnection`),
 * so the statements of accepted submissions and their commit (the fsync, and any checkpoint it
 * triggers) run here, beside the event loop. Whose turn it is to write is decided on the event
 * loop (`IngestThread`), which sends a batch every turn it has any; batches that arrived while
 * one was being written are written together, in one transaction and one commit.
 */
const { file, statements } = workerData as { file: string; statements: IngestStatementTexts };
const sqlite = configureWriterConnection(new SqliteDatabase(file));
const writer = new IngestBatchWriter(sqlite, ingestStatements(statements));
const port = parentPort;

port?.on('message', (first: WriterRequest) => {
  const requests = [first];
  for (let next = receiveMessageOnPort(port); next; next = receiveMessageOnPort(port)) {
    requests.push(next.message as WriterRequest);
  }
  const units: IngestRows[] = [];
  for (const request of requests) if (request.kind === 'ingest') units.push(...request.units);
  let replies: WriterReply[];
  try {
    const outcomes = units.length > 0 ? writer.write(units) : [];
    let at = 0;
    replies = requests.map((request) => {
      if (request.kind !== 'ingest') return { ok: true, outcomes: [] };
      const mine = outcomes.slice(at, at + request.units.length);
      at += request.units.length;
      return { ok: true, outcomes: mine };
    });
  } catch (error) {
    const failed: WriterReply = { ok: false, error: describe(error) };
    replies = requests.map(() => failed);
  }
  for (const [i, request] of requests.entries()) {
    if (request.kind === 'checkpoint') {
      try {
        sqlite.pragma('wal_checkpoint(PASSIVE)');
      } catch {
        // Left for the next pass: nothing depends on this one.
      }
    } else if (request.kind === 'truncate') {
      try {
        const [result] = sqlite.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>;
        replies[i] = { ok: true, outcomes: [], busy: result?.busy === 1 };
      } catch (error) {
        replies[i] = { ok: false, error: describe(error) };
      }
    } else if (request.kind === 'close') sqlite.close();
  }
  for (const reply of replies) port.postMessage(reply);
});
