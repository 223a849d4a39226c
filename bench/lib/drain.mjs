// The backlog a burst left with the worker on: waits, reading the store over its own connection
// (no load on the API), until no submission is left unfinished, and reports how fast it went.
const UNFINISHED = "select count(*) n from submissions where status not in ('completed','failed','rejected')";
const FINISHED = "select count(*) n from submissions where status in ('completed','failed','rejected')";

async function count(store, sql) {
  return Number((await store.query(sql))[0].n);
}

/** Call when the burst has ended; resolves once the backlog is empty (or `timeoutS` passed). */
export async function waitForDrain(store, { timeoutS = 900, pollMs = 250 } = {}) {
  const started = performance.now();
  const backlog = await count(store, UNFINISHED);
  const finishedAtStart = await count(store, FINISHED);
  let left = backlog;
  while (left > 0 && performance.now() - started < timeoutS * 1000) {
    await new Promise((r) => setTimeout(r, pollMs));
    left = await count(store, UNFINISHED);
  }
  const seconds = (performance.now() - started) / 1000;
  const finished = (await count(store, FINISHED)) - finishedAtStart;
  return { backlog, left, seconds, perSecond: seconds > 0 ? finished / seconds : 0 };
}
