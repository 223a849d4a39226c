// Loaded into the service under soak with `node --import`: every few seconds it appends the
// process's own `process.memoryUsage()` to the file named by SOAK_MEMORY_FILE (one JSON line),
// so the bench reads heap, external and array buffers without an endpoint in the service.
// A SIGUSR2 writes a heap snapshot beside it (the service's own --heapsnapshot-signal would too).
import fs from 'node:fs';
import v8 from 'node:v8';

const file = process.env.SOAK_MEMORY_FILE;
if (file) {
  const timer = setInterval(
    () => {
      const m = process.memoryUsage();
      fs.appendFileSync(file, `${JSON.stringify({ t: Date.now(), ...m })}\n`);
    },
    Number(process.env.SOAK_MEMORY_EVERY_MS ?? 5000),
  );
  timer.unref();
  if (process.env.SOAK_HEAP_DIR) {
    process.on('SIGUSR2', () => {
      v8.writeHeapSnapshot(`${process.env.SOAK_HEAP_DIR}/soak-${Date.now()}.heapsnapshot`);
    });
  }
}
