import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { Clock } from './clock.js';

/** The ids that join every log line of one submission, from its request to its callback. */
export interface WorkIds {
  requestId?: string | undefined;
  correlationId?: string | undefined;
  tenantId?: string | undefined;
  submissionId?: string | undefined;
}

/**
 * What one unit of work (an HTTP request, a job attempt, a maintenance pass) runs with: its ids,
 * a logger that carries them, and the service's clock (Medplum's request context).
 */
export interface WorkContext extends WorkIds {
  log: Logger;
  clock: Clock;
  /** The logger the ids are bound onto (rebound when an id is added). */
  readonly base: Logger;
}

const storage = new AsyncLocalStorage<WorkContext>();

/** The ids that are set, for a log line or a job row. */
export function definedIds(ids: WorkIds): WorkIds {
  const out: WorkIds = {};
  for (const key of ['requestId', 'correlationId', 'tenantId', 'submissionId'] as const) {
    const value = ids[key];
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

/** A context for `ids`, whose logger is `base` with those ids bound. */
export function workContext(base: Logger, clock: Clock, ids: WorkIds): WorkContext {
  const set = definedIds(ids);
  return { ...set, log: base.child(set), clock, base };
}

/** Runs `fn` (and everything it starts) inside `context`. */
export function runInContext<T>(context: WorkContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The context of the work running now, if any. */
export function currentContext(): WorkContext | undefined {
  return storage.getStore();
}

/**
 * Adds ids learnt during the work (the tenant once authenticated, the submission once stored) to
 * the current context, rebinding its logger so later lines carry them.
 */
export function addToContext(ids: WorkIds): void {
  const context = storage.getStore();
  if (!context) return;
  Object.assign(context, definedIds(ids));
  context.log = context.base.child(definedIds(context));
}
