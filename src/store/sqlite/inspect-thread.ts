import { parentPort, workerData } from 'node:worker_threads';
import { inspectCopy } from './backup-copy.js';

/**
 * A copy's integrity check on a thread of its own, so that the copy's SHA-256 is computed on the
 * calling thread meanwhile: on a store of a gigabyte each takes a second or two.
 */
const { file } = workerData as { file: string };
try {
  parentPort?.postMessage({ ok: true, facts: inspectCopy(file) });
} catch (error) {
  parentPort?.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
