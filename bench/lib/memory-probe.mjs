// Loaded into the service under soak with `node --import`, which worker threads inherit: every
// few seconds each thread (the event loop, the SQLite writer, each render thread) appends its
// own isolate's `process.memoryUsage()` to the file named by SOAK_MEMORY_FILE (one JSON line
// tagged with its threadId and young-generation limit, which tells the SQLite writer (4 MB)
// from a render thread), so the bench reads every heap without an endpoint in the service.
// On the main thread a SIGUSR2 writes a heap snapshot into SOAK_HEAP_DIR.
import fs from 'node:fs';
import v8 from 'node:v8';
import { isMainThread, resourceLimits, threadId } from 'node:worker_threads';

const file = process.env.SOAK_MEMORY_FILE;
if (file) {
  const timer = setInterval(
    () => {
      const m = process.memoryUsage();
      fs.appendFileSync(
        file,
        `${JSON.stringify({ t: Date.now(), threadId, youngMb: resourceLimits.maxYoungGenerationSizeMb, ...m })}\n`,
      );
    },
    Number(process.env.SOAK_MEMORY_EVERY_MS ?? 5000),
  );
  timer.unref();
  if (isMainThread && process.env.SOAK_HEAP_DIR) {
    process.on('SIGUSR2', () => {
      v8.writeHeapSnapshot(`${process.env.SOAK_HEAP_DIR}/soak-${Date.now()}.heapsnapshot`);
    });
  }
}
