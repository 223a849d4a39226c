import diagnosticsChannel from 'node:diagnostics_channel';
import type { ApiMode } from '../domain/mode.js';

/**
 * What the service reports about its own work, as events on Node's diagnostics channels
 * (Oban's and fastify's telemetry model): the code that does the work publishes one plain
 * object, and whatever observes it (the Prometheus registry, `metrics.ts`) subscribes. With no
 * subscriber (METRICS_PORT unset) a publish is one property read. Events carry no health data,
 * keys or ids: only bounded words, codes and durations.
 */
export interface TelemetryEvents {
  /** An HTTP answer sent. `route` is the route template, `unmatched` when none matched. */
  'http.request': { method: string; route: string; status: number; seconds: number };
  /** A submission request answered: accepted, replayed, or rejected with the error code. */
  'submission.answered': { outcome: 'accepted' | 'replayed' | 'rejected'; code: string; mode: ApiMode };
  /** One job attempt ended. `released` is an attempt handed back at shutdown or on a lost lease. */
  'job.attempt': { type: string; outcome: 'completed' | 'retried' | 'failed' | 'released'; seconds: number };
  /** Jobs whose lease ran out, handed back to the queue by the rescuer. */
  'job.rescued': { count: number };
  /** A submission reached a final state. Times in epoch milliseconds. */
  'submission.finished': {
    status: 'completed' | 'failed' | 'rejected';
    receivedAtMs: number;
    finishedAtMs: number;
    slaDeadlineMs: number | null;
  };
  /** One callback attempt; `deliveredAfterSeconds` (event created → 2xx) only when delivered. */
  'webhook.attempt': {
    outcome: string;
    mode: ApiMode;
    seconds: number;
    deliveredAfterSeconds: number | null;
  };
  /** One group-commit transaction. */
  'db.commit': { units: number; seconds: number };
  /**
   * One object store operation (`write`, `read`, `delete`, `redirect`: ok, missing or error), or
   * a report rendered again for a download (`rerender`: ok, or `mismatch` when it did not match).
   */
  'artifact.object': {
    operation: 'write' | 'read' | 'delete' | 'redirect' | 'rerender';
    outcome: 'ok' | 'missing' | 'error' | 'mismatch';
    count: number;
  };
  /** One report rendered (on whichever thread rendered it). */
  'report.rendered': { type: string; seconds: number };
  /** An entry appended to the erasure ledger (docs/backup.md). */
  'ledger.appended': { kind: 'requested' | 'completed' | 'override' };
  /** A replay of the erasure ledger against a restored database: counts only. */
  'erasures.replayed': { entries: number; erasures: number; resumed: number; submissions: number };
  /** An erasure refused because the ledger could not take its entry (full, read-only, gone). */
  'ledger.refused': { reason: string };
  /** Files killed backups left in BACKUP_DIR, removed by a scheduled pass. */
  'backup.leftovers': { files: number; bytes: number };
  /** A backup written by this process (a scheduled one), verified or failed. */
  'backup.finished': { outcome: 'ok' | 'failed'; seconds: number; finishedAtMs: number };
}

export type TelemetryEventName = keyof TelemetryEvents;

const channels = new Map<TelemetryEventName, diagnosticsChannel.Channel>();

function channel(name: TelemetryEventName): diagnosticsChannel.Channel {
  let c = channels.get(name);
  if (!c) {
    c = diagnosticsChannel.channel(`healthspan:${name}`);
    channels.set(name, c);
  }
  return c;
}

/** Publishes `event` to whoever observes `name`; nothing happens when nobody does. */
export function emit<K extends TelemetryEventName>(name: K, event: TelemetryEvents[K]): void {
  const c = channel(name);
  if (c.hasSubscribers) c.publish(event);
}

/** True when someone observes `name`: lets a caller skip building an event nobody reads. */
export function observed(name: TelemetryEventName): boolean {
  return channel(name).hasSubscribers;
}

export type TelemetryHandlers = { [K in TelemetryEventName]?: (event: TelemetryEvents[K]) => void };

/** Subscribes each handler to its event; the returned function unsubscribes them all. */
export function observe(handlers: TelemetryHandlers): () => void {
  const undo: Array<() => void> = [];
  for (const name of Object.keys(handlers) as TelemetryEventName[]) {
    const handler = handlers[name] as ((event: unknown) => void) | undefined;
    if (!handler) continue;
    const listener = (message: unknown) => handler(message);
    channel(name).subscribe(listener);
    undo.push(() => channel(name).unsubscribe(listener));
  }
  return () => {
    for (const fn of undo) fn();
  };
}
