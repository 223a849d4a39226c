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

const ID_KEYS = ['requestId', 'correlationId', 'tenantId', 'submissionId'] as const;

/** The ids that are set, for a log line or a job row. */
export function definedIds(ids: WorkIds): WorkIds {
  const out: WorkIds = {};
  for (const key of ID_KEYS) {
    const value = ids[key];
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

/**
 * What one unit of work (an HTTP request, a job attempt, a maintenance pass) runs with: its ids,
 * the logger its lines go to, and the service's clock (Medplum's request context). The ids reach
 * every line written while the work runs through the logger's mixin (`logContext`), whichever
 * logger writes it: no child logger per request or job, and nothing passed by hand.
 */
export class WorkContext implements WorkIds {
  requestId: string | undefined;
  correlationId: string | undefined;
  tenantId: string | undefined;
  submissionId: string | undefined;

  constructor(
    /** The logger this work's own lines go to (its ids come from the mixin). */
    readonly log: Logger,
    readonly clock: Clock,
    ids: WorkIds,
    /** Fields of the work itself (a job's id, kind and attempt), on each of its lines. */
    private readonly bindings: Readonly<Record<string, unknown>> = {},
  ) {
    this.requestId = ids.requestId;
    this.correlationId = ids.correlationId;
    this.tenantId = ids.tenantId;
    this.submissionId = ids.submissionId;
  }

  /** Adds ids learnt during the work; lines logged from then on carry them. */
  add(ids: WorkIds): void {
    for (const key of ID_KEYS) {
      const value = ids[key];
      if (value !== undefined && value !== null) this[key] = value;
    }
  }

  /** A new object per line: pino merges the line's own fields into it (they win). */
  fields(): Record<string, unknown> {
    const out: Record<string, unknown> = { ...this.bindings };
    if (this.requestId !== undefined) out.requestId = this.requestId;
    if (this.correlationId !== undefined) out.correlationId = this.correlationId;
    if (this.tenantId !== undefined) out.tenantId = this.tenantId;
    if (this.submissionId !== undefined) out.submissionId = this.submissionId;
    return out;
  }
}

const storage = new AsyncLocalStorage<WorkContext>();

/** A context for `ids`, whose lines go to `log`. */
export function workContext(
  log: Logger,
  clock: Clock,
  ids: WorkIds,
  bindings?: Record<string, unknown>,
): WorkContext {
  return new WorkContext(log, clock, ids, bindings);
}

/** Runs `fn` (and everything it starts) inside `context`. */
export function runInContext<T>(context: WorkContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * Adds ids learnt during the work (the tenant once authenticated, the submission once stored) to
 * the current context, so later lines carry them.
 */
export function addToContext(ids: WorkIds): void {
  storage.getStore()?.add(ids);
}

/**
 * The logger's `mixin` (`createLogger`): the fields of the work the line is written in (none
 * outside any), called only for lines that are written, at their level.
 */
export function logContext(): Record<string, unknown> {
  return storage.getStore()?.fields() ?? {};
}

/**
 * Runs `fn` outside any work context: for what one unit of work merely sets going but that is
 * nobody's in particular (the worker's claim loop, a pooled connection's later failure), so its
 * lines do not carry the ids of whoever happened to start it.
 */
export function outsideContext<T>(fn: () => T): T {
  return storage.exit(fn);
}
